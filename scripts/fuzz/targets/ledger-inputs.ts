/**
 * Odd inputs for the ledger targets (not a target module: it exports no `targets`): event ids,
 * owners, digests, durations and cursors as a careless caller passes them, over a small pool of
 * good ids so cases meet the same rows (busy leases, conflicts, lost leases).
 */
import { payloadDigest } from '@queueport/core';
import type { LedgerRecord } from '@queueport/ledger';
import fc from 'fast-check';
import { LONE_SURROGATES, oddNumber, oddString, oddValue } from '../arbitraries';
import { check } from '../context';

export const GOOD_IDS = ['order_1:created:v1', 'order_2:created:v1', 'zahlung_ü:v1', 'emoji_😀:v1', 'a'];
export const DIGESTS = [payloadDigest({ amount: 1 }), payloadDigest({ amount: 2 })];
export const OWNERS = ['worker-a', 'worker-b', 'worker-c'];

export const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(...GOOD_IDS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', '\u0000', 'a\u0000b', 'x'.repeat(513), '€'.repeat(171), ' ', '\t'),
  },
  { weight: 2, arbitrary: fc.constantFrom(...LONE_SURROGATES).map((lone) => `order_${lone}`) },
  { weight: 2, arbitrary: oddString },
  { weight: 1, arbitrary: oddValue },
);

export const ownerArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(...OWNERS) },
  { weight: 2, arbitrary: fc.constantFrom('', '\u0000', 'worker-\uD800', 'worker-\uD801', 'x'.repeat(600)) },
  { weight: 1, arbitrary: oddValue },
);

export const digestArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(...DIGESTS) },
  { weight: 1, arbitrary: fc.constantFrom('A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(63)}\u0000`) },
  { weight: 1, arbitrary: oddValue },
);

export const secondsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 20, arbitrary: fc.integer({ min: 1, max: 600 }) },
  { weight: 3, arbitrary: oddNumber },
  { weight: 1, arbitrary: fc.constantFrom(3_155_760_000, 3_155_760_001, 1e13, '30') },
  { weight: 1, arbitrary: oddValue },
);

export const outcomeTextArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('http 200', 'http 503', 'timeout') },
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: fc.constantFrom(`${'x'.repeat(998)}😀tail`, 'a\u0000b', 'x'.repeat(20_000)) },
  { weight: 1, arbitrary: oddValue },
);

export const retryAtArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 2 ** 45 }) },
  { weight: 2, arbitrary: oddNumber },
  { weight: 1, arbitrary: oddValue },
);

export const limitArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(10_000, 10_001, 0, -1, 1.5, 1e9) },
  { weight: 1, arbitrary: oddNumber },
  { weight: 1, arbitrary: oddValue },
);

export const afterArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constantFrom(...GOOD_IDS) },
  { weight: 2, arbitrary: fc.constantFrom('', '\u0000', '\uD800', 'x'.repeat(600), 'zzz', ' ', '\uFFFF') },
  { weight: 1, arbitrary: oddValue },
);

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Code point order, which both stores sort ids by (UTF-16 order differs past U+D7FF). */
export function compareIds(a: string, b: string): number {
  const left = [...a].map((c) => c.codePointAt(0)!);
  const right = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! - right[i]!;
  }
  return left.length - right.length;
}

/** What every record a store returns must be like, whatever was asked. */
export function checkRecord(record: LedgerRecord): void {
  check(
    typeof record.eventId === 'string' &&
      (record.eventId as unknown as { isWellFormed(): boolean }).isWellFormed() &&
      !hasControlCharacter(record.eventId),
    `a stored id no store keeps exactly: ${JSON.stringify(record.eventId)}`,
  );
  check(['processing', 'delivered', 'failed'].includes(record.state), `state ${record.state}`);
  check(Number.isSafeInteger(record.attempts) && record.attempts >= 1, `attempts ${record.attempts}`);
  check(
    (record.leaseOwner === null) === (record.leaseUntil === null),
    'a lease owner without a lease, or the reverse',
  );
  if (record.lastOutcome !== null) {
    check(record.lastOutcome.length <= 1_000, 'an outcome longer than 1,000 characters was stored');
    check(
      (record.lastOutcome as unknown as { isWellFormed(): boolean }).isWellFormed() &&
        !record.lastOutcome.includes('\u0000'),
      'an outcome was stored that PostgreSQL could not hold',
    );
  }
  for (const time of [
    record.leaseUntil,
    record.retryAt,
    record.deliveredAt,
    record.createdAt,
    record.updatedAt,
  ]) {
    check(time === null || Number.isSafeInteger(time), `a time that is not a safe integer: ${time}`);
  }
}
