/**
 * claim / complete / fail / release / get on one temporary SQLite ledger, with odd inputs over a
 * small pool of good ids so cases meet the same rows. Every call ends in success or a typed
 * QueueError, never INTERNAL (a database error let through by an input that reached the SQL),
 * and what is stored comes back exactly as given.
 */
import type { ClaimResult, LedgerRecord } from '@queueport/ledger';
import fc from 'fast-check';
import { check, outcomeOf } from '../context';
import { ledgerPerTarget } from '../ledger-per-target';
import type { FuzzTarget } from './fuzz-target';
import {
  checkRecord,
  digestArb,
  idArb,
  outcomeTextArb,
  ownerArb,
  retryAtArb,
  secondsArb,
} from './ledger-inputs';

type Op =
  | { kind: 'claim'; eventId: unknown; payloadSha256: unknown; owner: unknown; leaseSeconds: unknown }
  | { kind: 'complete' | 'fail'; eventId: unknown; owner: unknown; outcome: unknown }
  | { kind: 'release'; eventId: unknown; owner: unknown; outcome: unknown; retryAt: unknown }
  | { kind: 'get'; eventId: unknown }
  | { kind: 'advance'; ms: number }
  | { kind: 'junk'; method: 'claim' | 'complete' | 'fail' | 'release' | 'get'; request: unknown };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      eventId: idArb,
      payloadSha256: digestArb,
      owner: ownerArb,
      leaseSeconds: secondsArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('complete' as const, 'fail' as const),
      eventId: idArb,
      owner: ownerArb,
      outcome: outcomeTextArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      eventId: idArb,
      owner: ownerArb,
      outcome: outcomeTextArb,
      retryAt: retryAtArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('get' as const), eventId: idArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 120_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('junk' as const),
      method: fc.constantFrom(
        'claim' as const,
        'complete' as const,
        'fail' as const,
        'release' as const,
        'get' as const,
      ),
      request: fc.constantFrom(null, undefined, [], 'claim', 7, {}),
    }),
  },
);

/** One ledger for the whole run, opened in the first case and removed after the last. */
const ledgerOnce = ledgerPerTarget();

function checkTyped(outcome: { ok: boolean; error?: { code: string } }, what: string): void {
  if (!outcome.ok) check(outcome.error!.code !== 'INTERNAL', `${what} leaked a database error as INTERNAL`);
}

export const targets: FuzzTarget[] = [
  {
    name: 'ledger-claim-settle',
    minCases: 2_000,
    property: () =>
      fc.asyncProperty(opArb, async (op) => {
        const { ledger, clock } = await ledgerOnce();
        switch (op.kind) {
          case 'claim': {
            const now = clock.now();
            const { kind: _kind, ...request } = op;
            const outcome = await outcomeOf(() => ledger.claim(request as never), 'claim');
            checkTyped(outcome, 'claim');
            if (!outcome.ok) return;
            const result: ClaimResult = outcome.value;
            checkRecord(result.record);
            check(result.record.eventId === op.eventId, 'claim answered for another id');
            if (result.status === 'claimed') {
              check(result.record.leaseOwner === op.owner, 'the lease went to another owner');
              check(
                result.leaseUntil === now + Math.ceil((op.leaseSeconds as number) * 1000),
                'lease length',
              );
            }
            const stored = await ledger.get(op.eventId as string);
            check(
              stored !== undefined && stored.eventId === op.eventId,
              'a claimed id cannot be read back as given',
            );
            return;
          }
          case 'complete':
          case 'fail':
          case 'release': {
            const { kind, ...request } = op;
            const outcome = await outcomeOf(() => ledger[kind](request as never), kind);
            checkTyped(outcome, kind);
            if (!outcome.ok) return;
            const record: LedgerRecord = outcome.value;
            checkRecord(record);
            check(record.eventId === op.eventId, `${kind} answered for another id`);
            check(
              record.state ===
                (kind === 'complete' ? 'delivered' : kind === 'fail' ? 'failed' : 'processing'),
              `${kind} left state ${record.state}`,
            );
            check(record.leaseOwner === null, `${kind} kept the lease`);
            return;
          }
          case 'get': {
            const outcome = await outcomeOf(() => ledger.get(op.eventId as string), 'get');
            checkTyped(outcome, 'get');
            if (outcome.ok && outcome.value) {
              checkRecord(outcome.value);
              check(outcome.value.eventId === op.eventId, 'get answered for another id');
            }
            return;
          }
          case 'advance':
            await clock.advance(op.ms);
            return;
          case 'junk': {
            const call = (): Promise<unknown> =>
              op.method === 'get' ? ledger.get(op.request as never) : ledger[op.method](op.request as never);
            const outcome = await outcomeOf(call, `${op.method}(junk)`);
            // 'claim' is a fine event id for get; every other junk request is refused.
            const fine = op.method === 'get' && typeof op.request === 'string';
            if (!fine) {
              check(
                !outcome.ok && outcome.error.code === 'INVALID_ARGUMENT',
                `${op.method} took a request of ${String(op.request)}`,
              );
            }
          }
        }
      }),
  },
];
