import { isQueueError, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { schemasPerFile } from './support/postgres';

/**
 * The same odd input, fed to both stores, must get the same typed answer: the same QueueError
 * code, or success with the same result. Each scenario runs on a fresh pair of ledgers whose
 * virtual clocks agree, so even the timestamps of the records match.
 */

const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_odd', connectionString);

type Step = (ledger: Ledger, clock: VirtualClock) => Promise<unknown>;

const DIGEST = payloadDigest({ amount: 1 });
const any = <T>(value: unknown) => value as T;

/** What a caller can tell apart: the error code, or success and the value. */
async function outcomeOf(step: Step, ledger: Ledger, clock: VirtualClock): Promise<unknown> {
  try {
    return { ok: await step(ledger, clock) };
  } catch (error) {
    if (isQueueError(error)) return { error: error.code };
    return { untyped: `${(error as Error)?.name}: ${(error as Error)?.message}` };
  }
}

/**
 * An odd input is the caller's mistake: INVALID_ARGUMENT, never an untyped exception and never
 * INTERNAL (a database error that leaked through because the input reached the SQL).
 */
function expectTypedRefusals(outcomes: readonly unknown[]): void {
  for (const outcome of outcomes) {
    expect(outcome).not.toHaveProperty('untyped');
    expect(outcome).not.toEqual({ error: 'INTERNAL' });
  }
}

async function onBothStores(steps: readonly Step[]): Promise<{ sqlite: unknown[]; postgres: unknown[] }> {
  const sqliteClock = new VirtualClock();
  const postgresClock = new VirtualClock();
  const sqlite = await temporarySqliteLedger(sqliteClock);
  const schema = schemas.next();
  const postgres = await openPostgresLedger({ connectionString, schema, clock: postgresClock });
  try {
    const outcomes = { sqlite: [] as unknown[], postgres: [] as unknown[] };
    for (const step of steps) {
      outcomes.sqlite.push(await outcomeOf(step, sqlite.ledger, sqliteClock));
      outcomes.postgres.push(await outcomeOf(step, postgres, postgresClock));
    }
    return outcomes;
  } finally {
    await sqlite.dispose();
    await postgres.close();
    await schemas.drop(schema);
  }
}

const claim =
  (eventId: unknown, extra: Record<string, unknown> = {}): Step =>
  (ledger) =>
    ledger.claim(any({ eventId, payloadSha256: DIGEST, owner: 'worker-a', leaseSeconds: 30, ...extra }));
const release =
  (eventId: unknown, extra: Record<string, unknown> = {}): Step =>
  (ledger) =>
    ledger.release(any({ eventId, owner: 'worker-a', outcome: 'http 503', ...extra }));
const complete =
  (eventId: unknown, extra: Record<string, unknown> = {}): Step =>
  (ledger) =>
    ledger.complete(any({ eventId, owner: 'worker-a', outcome: 'http 200', ...extra }));
const get =
  (eventId: unknown): Step =>
  (ledger) =>
    ledger.get(any(eventId));
const pending =
  (request: unknown): Step =>
  (ledger) =>
    ledger.scanPending(any(request));
const ambiguous =
  (request: unknown): Step =>
  (ledger) =>
    ledger.scanAmbiguous(any(request));
const prune =
  (request: unknown): Step =>
  (ledger) =>
    ledger.prune(any(request));
const later =
  (ms: number): Step =>
  async (_ledger, clock) => {
    await clock.advance(ms);
    return ms;
  };

const ODD_IDS: Array<[string, unknown]> = [
  ['an empty id', ''],
  ['513 ASCII bytes', 'x'.repeat(513)],
  ['513 bytes of three-byte characters', '€'.repeat(171)],
  ['a 4 MB id', 'x'.repeat(4_000_000)],
  ['a number', 42],
  ['null', null],
  ['an object', { id: 1 }],
  ['a NUL byte', 'payment_1\u0000:settled'],
  ['a lone high surrogate', 'payment_\uD800'],
  ['a lone low surrogate', 'payment_\uDFFF:x'],
  ['a reversed pair', '\uDE00\uD83D'],
  ['a tab', 'payment\t1'],
  ['DEL', 'payment\u007f'],
  ['a well-formed pair', 'payment_😀'],
  ['NFD', 'zahlung_u\u0308'],
];

const ODD_SCENARIOS: Array<[string, Step[]]> = [
  ...ODD_IDS.map(([name, id]): [string, Step[]] => [`event id: ${name}`, [claim(id), get(id), release(id)]]),
  ...ODD_IDS.map(([name, owner]): [string, Step[]] => [
    `owner: ${name}`,
    [claim('e1', { owner }), complete('e1', { owner })],
  ]),
  [
    'two lone surrogates, once stored as the same U+FFFD',
    [claim('x\uD800'), claim('x\uD801', { owner: 'worker-b' }), get('x\uFFFD'), ambiguous({ limit: 10 })],
  ],
  ...[
    0,
    -1,
    0.0001,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    1e13,
    1e300,
    '30',
    3_155_760_000,
    3_155_760_001,
  ].map((leaseSeconds): [string, Step[]] => [
    `leaseSeconds ${String(leaseSeconds)}`,
    [claim('e1', { leaseSeconds }), later(1), claim('e1', { owner: 'worker-b' })],
  ]),
  ...['a\u0000b', 'lone \uD800', 'x'.repeat(5_000), `${'x'.repeat(998)}😀tail`, 5, null].map(
    (outcome): [string, Step[]] => [
      `outcome ${JSON.stringify(outcome)?.slice(0, 30)}`,
      [claim('e1'), release('e1', { outcome }), get('e1')],
    ],
  ),
  ...[1.5, -1, 1e20, Number.NaN, Number.MAX_SAFE_INTEGER, '5', 0].map((retryAt): [string, Step[]] => [
    `retryAt ${String(retryAt)}`,
    [claim('e1'), release('e1', { retryAt }), get('e1')],
  ]),
  ...[0, 1, 10_000, 10_001, 1e9, 1.5, Number.NaN, '10', -1].map((limit): [string, Step[]] => [
    `limit ${String(limit)}`,
    [claim('e1'), later(5_000), pending({ olderThanSeconds: 1, limit }), ambiguous({ limit })],
  ]),
  ...[-1, 0, 0.5, 1e300, Number.NaN, Number.POSITIVE_INFINITY, 3_155_760_000, '5'].map(
    (olderThanSeconds): [string, Step[]] => [
      `olderThanSeconds ${String(olderThanSeconds)}`,
      [
        claim('e1'),
        complete('e1'),
        later(5_000),
        pending({ olderThanSeconds, limit: 10 }),
        prune({ olderThanSeconds }),
      ],
    ],
  ),
  ...['', '\u0000', '\uD800', 'x'.repeat(600), 5, null, 'zzz', ' ', 'e1'].map((after): [string, Step[]] => [
    `after ${JSON.stringify(after)?.slice(0, 20)}`,
    [
      claim('e1'),
      claim('e2'),
      later(5_000),
      pending({ olderThanSeconds: 1, limit: 10, after }),
      ambiguous({ limit: 10, after }),
    ],
  ]),
  ...[null, undefined, [], 'claim', 7].map((request): [string, Step[]] => [
    `a request that is ${JSON.stringify(request) ?? 'undefined'}`,
    [
      (ledger) => ledger.claim(any(request)),
      (ledger) => ledger.complete(any(request)),
      (ledger) => ledger.fail(any(request)),
      (ledger) => ledger.release(any(request)),
      pending(request),
    ],
  ]),
];

describe('both ledger stores give the same typed answer to the same odd input', () => {
  it.each(ODD_SCENARIOS)('%s', async (_name, steps) => {
    const { sqlite, postgres } = await onBothStores(steps);
    expect(postgres).toEqual(sqlite);
    expectTypedRefusals(sqlite);
  });

  it("two owners with different lone surrogates cannot settle each other's lease", async () => {
    const { sqlite, postgres } = await onBothStores([
      claim('e1', { owner: 'worker-\uD800' }),
      complete('e1', { owner: 'worker-\uD801' }),
    ]);
    expect(postgres).toEqual(sqlite);
    expect(sqlite).toEqual([{ error: 'INVALID_ARGUMENT' }, { error: 'INVALID_ARGUMENT' }]);
  });

  it('a lone surrogate can neither collide with another id nor come back changed', async () => {
    const { sqlite, postgres } = await onBothStores([claim('x\uD800'), claim('x\uD801'), get('x\uFFFD')]);
    expect(sqlite).toEqual([{ error: 'INVALID_ARGUMENT' }, { error: 'INVALID_ARGUMENT' }, { ok: undefined }]);
    expect(postgres).toEqual(sqlite);
  });

  it('an outcome is never refused after the side effect: NUL and a cut surrogate pair are stored as U+FFFD', async () => {
    const cut = `${'x'.repeat(998)}😀tail`;
    const { sqlite, postgres } = await onBothStores([
      claim('e1'),
      release('e1', { outcome: 'a\u0000b' }),
      claim('e1'),
      release('e1', { outcome: cut }),
      get('e1'),
    ]);
    expect(postgres).toEqual(sqlite);
    expect((sqlite[1] as { ok: { lastOutcome: string } }).ok.lastOutcome).toBe('a\ufffdb');
    const last = (sqlite[4] as { ok: { lastOutcome: string } }).ok.lastOutcome;
    expect(last).toBe(`${'x'.repeat(998)}\ufffd…`);
  });

  it('generated odd inputs agree too', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('', '\u0000', '\uD800', 'a\uDC00', 'e1', 'x'.repeat(513), '😀'),
    );
    const number = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(0, -1, 1e13, 1e300, Number.NaN, Number.MAX_SAFE_INTEGER, 3_155_760_000),
    );
    const value = fc.oneof(text, number, fc.constant(undefined), fc.constant(null));
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ id: text, owner: text, lease: number }).map(
        ({ id, owner, lease }): Step =>
          (ledger) =>
            ledger.claim(any({ eventId: id, payloadSha256: DIGEST, owner, leaseSeconds: lease })),
      ),
      fc.record({ id: text, owner: text, outcome: value, retryAt: value }).map(
        ({ id, owner, outcome, retryAt }): Step =>
          (ledger) =>
            ledger.release(any({ eventId: id, owner, outcome, retryAt })),
      ),
      fc.record({ id: text, owner: text }).map(
        ({ id, owner }): Step =>
          (ledger) =>
            ledger.complete(any({ eventId: id, owner, outcome: 'ok' })),
      ),
      fc.record({ older: number, limit: number, after: value }).map(
        ({ older, limit, after }): Step =>
          (ledger) =>
            ledger.scanPending(any({ olderThanSeconds: older, limit, after })),
      ),
      fc.record({ limit: number, after: value }).map(
        ({ limit, after }): Step =>
          (ledger) =>
            ledger.scanAmbiguous(any({ limit, after })),
      ),
      fc.nat({ max: 60_000 }).map(later),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const { sqlite, postgres } = await onBothStores(steps);
        expect(postgres).toEqual(sqlite);
        expectTypedRefusals(sqlite);
      }),
      { numRuns: 40 },
    );
  });
});
