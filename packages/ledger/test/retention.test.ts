import { mkdtempSync, rmSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FilePayloadStore, isQueueError, type PayloadReference, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import {
  type AttemptLog,
  applyRetention,
  checkRetentionPolicy,
  DEFAULT_MESSAGE_LIFETIME_SECONDS,
  type Ledger,
  type LedgerWithDestinations,
  type RetentionPolicy,
  type RetentionProgress,
} from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { schemasPerFile } from './support/postgres';

const DAY_MS = 86_400_000;
const DAY = 86_400;
const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_retention', connectionString);
const dir = mkdtempSync(path.join(tmpdir(), 'queueport-ledger-retention-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Store = LedgerWithDestinations & AttemptLog;
type Open = (clock: VirtualClock) => Promise<Store>;
const STORES: [string, Open][] = [
  ['sqlite', (clock) => openSqliteLedger({ filename: path.join(dir, `r-${++files}.db`), clock })],
  ['postgres', (clock) => openPostgresLedger({ connectionString, schema: schemas.next(), clock })],
];

const POLICY: RetentionPolicy = {
  historySeconds: 30 * DAY,
  attemptsSeconds: 14 * DAY,
  payloadsSeconds: 30 * DAY,
};

/** The same ledger without its attempt log, as a wrapper written before the log would be. */
function withoutAttemptLog(ledger: Ledger): Ledger {
  const hidden = new Set<PropertyKey>(['listAttempts', 'pruneAttempts']);
  return new Proxy(ledger, {
    get(target, key) {
      if (hidden.has(key)) return undefined;
      const value: unknown = Reflect.get(target, key);
      // Bound, so a store's private fields are read from the store, not from the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(STORES)('applyRetention: %s', (_name, open) => {
  let clock: VirtualClock;
  let ledger: Store;
  let payloads: FilePayloadStore;
  const opened: Store[] = [];

  beforeEach(async () => {
    clock = new VirtualClock(Date.UTC(2026, 0, 1));
    ledger = await open(clock);
    opened.push(ledger);
    payloads = new FilePayloadStore({ root: path.join(dir, `payloads-${++files}`), clock });
  });
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
  });

  const claim = (eventId: string) =>
    ledger.claim({ eventId, payloadSha256: payloadDigest({ eventId }), owner: 'w', leaseSeconds: 30 });
  const attempt = () => ({ startedAt: clock.now(), durationMs: 5, destinationId: 'acme' });
  const settled = async (eventId: string, how: 'complete' | 'fail' | 'release') => {
    await claim(eventId);
    await ledger[how]({ eventId, owner: 'w', outcome: how, attempt: attempt() });
  };
  /** A payload stored now, by the virtual clock (file times are wall time, so set to match). */
  const storePayload = async (text: string): Promise<PayloadReference> => {
    const reference = await payloads.put(new TextEncoder().encode(text));
    const at = clock.now() / 1000;
    await utimes(path.join(payloads.root, reference.sha256.slice(0, 2), reference.sha256), at, at);
    return reference;
  };
  const attemptsOf = async (eventId: string) =>
    (await ledger.listAttempts({ eventId, limit: 100 })).map((each) => each.attempt);
  const has = (reference: PayloadReference) =>
    payloads.get(reference).then(
      () => true,
      (error) => (isQueueError(error, 'NOT_FOUND') ? false : Promise.reject(error)),
    );

  /**
   * Sixty days of history. Day 0: settled rows, a released row, a leased one and a parked one,
   * a payload. Day 40: a delivered row. Day 59: a delivered row, a released one, a payload. Now
   * is day 60: history and payloads keep 30 days, attempts 14.
   */
  async function population() {
    await settled('old-delivered', 'complete');
    await settled('old-failed', 'fail');
    await settled('old-pending', 'release');
    await claim('old-leased');
    await ledger.destinations.disable({ destinationId: 'acme', reason: 'gone' });
    await claim('old-parked');
    await ledger.destinations.park({ eventId: 'old-parked', owner: 'w', destinationId: 'acme', body: '{}' });
    const oldPayload = await storePayload('stored on day 0');
    await clock.advance(40 * DAY_MS);
    await settled('mid-delivered', 'complete');
    await clock.advance(19 * DAY_MS);
    await settled('new-delivered', 'complete');
    await settled('new-pending', 'release');
    const newPayload = await storePayload('stored on day 59');
    await clock.advance(DAY_MS);
    return { oldPayload, newPayload };
  }

  it('deletes exactly the old settled rows, the old attempts and the old payloads', async () => {
    const { oldPayload, newPayload } = await population();
    const progress: RetentionProgress[] = [];

    const report = await applyRetention(POLICY, {
      ledger,
      payloadStore: payloads,
      onProgress: (event) => progress.push(event),
    });

    // Attempts of day 0 (three) and of day 40; the rows of day 0 that were settled; one payload.
    expect(report).toEqual({ historyRows: 2, attempts: 4, payloads: 1, skipped: [] });
    const rows = await ledger.list({ limit: 100 });
    expect(rows.map((row) => [row.eventId, row.state])).toEqual([
      ['mid-delivered', 'delivered'],
      ['new-delivered', 'delivered'],
      ['new-pending', 'processing'],
      ['old-leased', 'processing'],
      ['old-parked', 'processing'],
      ['old-pending', 'processing'],
    ]);
    // The parked event is whole: its row, its place among the parked, its body.
    const parked = await ledger.destinations.listParked({ destinationId: 'acme', limit: 10 });
    expect(parked).toMatchObject([{ eventId: 'old-parked', body: '{}', ledgerState: 'processing' }]);
    expect(await ledger.destinations.get('acme')).toMatchObject({ disabled: true, parked: 1 });
    // An unfinished event keeps its row for reconciliation, though its old attempt went.
    expect(
      (await ledger.scanPending({ olderThanSeconds: 30 * DAY, limit: 10 })).map((r) => r.eventId),
    ).toEqual(['old-leased', 'old-pending']);
    expect(await attemptsOf('old-pending')).toEqual([]);
    expect(await attemptsOf('mid-delivered')).toEqual([]);
    expect(await attemptsOf('new-delivered')).toEqual([1]);
    expect(await attemptsOf('new-pending')).toEqual([1]);
    expect(await has(oldPayload)).toBe(false);
    expect(await has(newPayload)).toBe(true);

    expect(progress).toEqual([
      { step: 'attempts', phase: 'started', olderThanSeconds: 14 * DAY },
      { step: 'attempts', phase: 'finished', olderThanSeconds: 14 * DAY, deleted: 4 },
      { step: 'history', phase: 'started', olderThanSeconds: 30 * DAY },
      { step: 'history', phase: 'finished', olderThanSeconds: 30 * DAY, deleted: 2 },
      { step: 'payloads', phase: 'started', olderThanSeconds: 30 * DAY },
      { step: 'payloads', phase: 'finished', olderThanSeconds: 30 * DAY, deleted: 1 },
    ]);

    // Run again: nothing left to delete.
    expect(await applyRetention(POLICY, { ledger, payloadStore: payloads })).toEqual({
      historyRows: 0,
      attempts: 0,
      payloads: 0,
      skipped: [],
    });
  });

  it('prunes the attempts at the history age when the policy gives them none', async () => {
    await population();
    const report = await applyRetention({ historySeconds: 30 * DAY }, { ledger });
    // Day 0's three attempts only; day 40's is 20 days old and stays with its row.
    expect(report).toEqual({ historyRows: 2, attempts: 3, payloads: 0, skipped: [] });
    expect(await attemptsOf('mid-delivered')).toEqual([1]);
    expect(await attemptsOf('old-pending')).toEqual([]);
  });

  it('never deletes a parked event, whatever the ages', async () => {
    await population();
    const report = await applyRetention(
      { historySeconds: 0, attemptsSeconds: 0, payloadsSeconds: 0, messageLifetimeSeconds: 0 },
      { ledger, payloadStore: payloads },
    );
    expect(report).toMatchObject({ historyRows: 4, payloads: 2 });
    expect((await ledger.list({ limit: 100 })).map((row) => row.eventId)).toEqual([
      'new-pending',
      'old-leased',
      'old-parked',
      'old-pending',
    ]);
    expect(await ledger.destinations.listParked({ destinationId: 'acme', limit: 10 })).toMatchObject([
      { eventId: 'old-parked', ledgerState: 'processing' },
    ]);
  });

  it('keeps the settled row of an event still parked, so a resume finds it delivered and does not send it again', async () => {
    await ledger.destinations.disable({ destinationId: 'acme', reason: 'gone' });
    await claim('parked-then-delivered');
    await ledger.destinations.park({
      eventId: 'parked-then-delivered',
      owner: 'w',
      destinationId: 'acme',
      body: '{}',
    });
    // Delivered another way (a redelivery, reconciliation) while its parked copy waits.
    await settled('parked-then-delivered', 'complete');
    await settled('delivered-alone', 'complete');
    await clock.advance(60 * DAY_MS);
    const report = await applyRetention({ historySeconds: 30 * DAY }, { ledger });
    expect(report.historyRows).toBe(1);
    expect((await ledger.list({ limit: 10 })).map((row) => row.eventId)).toEqual(['parked-then-delivered']);
    expect(await ledger.destinations.listParked({ destinationId: 'acme', limit: 10 })).toMatchObject([
      { eventId: 'parked-then-delivered', ledgerState: 'delivered' },
    ]);
  });

  it('reports what it could not do: no attempt log, a store that cannot prune, a store or an age missing', async () => {
    await population();
    const report = await applyRetention(POLICY, { ledger: withoutAttemptLog(ledger), payloadStore: {} });
    expect(report).toEqual({
      historyRows: 2,
      attempts: 0,
      payloads: 0,
      skipped: [
        { step: 'attempts', reason: 'no-attempt-log', detail: 'the ledger keeps no attempt log' },
        { step: 'payloads', reason: 'store-cannot-prune', detail: 'the payload store has no prune' },
      ],
    });
    // The history prune still took the deleted rows' attempts with them.
    expect(await attemptsOf('old-delivered')).toEqual([]);
    expect(await attemptsOf('mid-delivered')).toEqual([1]);

    expect((await applyRetention(POLICY, { ledger })).skipped).toEqual([
      { step: 'payloads', reason: 'no-payload-store', detail: 'no payload store was given' },
    ]);
    expect(
      (await applyRetention({ historySeconds: 30 * DAY }, { ledger, payloadStore: payloads })).skipped,
    ).toEqual([{ step: 'payloads', reason: 'no-payload-age', detail: 'the policy sets no payloadsSeconds' }]);
  });

  it('starts no step once its signal is aborted', async () => {
    await population();
    const report = await applyRetention(POLICY, {
      ledger,
      payloadStore: payloads,
      signal: AbortSignal.abort(),
    });
    expect(report.skipped.map((each) => [each.step, each.reason])).toEqual([
      ['attempts', 'stopped'],
      ['history', 'stopped'],
      ['payloads', 'stopped'],
    ]);
    expect(await ledger.list({ limit: 100 })).toHaveLength(8);
  });

  it('deletes nothing when the policy is refused', async () => {
    await population();
    const refused = await applyRetention({ ...POLICY, attemptsSeconds: 31 * DAY }, { ledger }).catch(
      (error: unknown) => error,
    );
    expect(isQueueError(refused, 'INVALID_ARGUMENT')).toBe(true);
    expect(await ledger.list({ limit: 100 })).toHaveLength(8);
    expect(await attemptsOf('old-delivered')).toEqual([1]);
  });
});

describe('checkRetentionPolicy', () => {
  const refusal = (policy: unknown) => {
    try {
      checkRetentionPolicy(policy as RetentionPolicy);
    } catch (error) {
      if (!isQueueError(error, 'INVALID_ARGUMENT')) throw error;
      return { field: error.details.field, message: error.message };
    }
    throw new Error(`accepted ${JSON.stringify(policy)}`);
  };

  it('fills in the defaults: attempts at the history age, no payload pruning, the portable lifetime', () => {
    expect(DEFAULT_MESSAGE_LIFETIME_SECONDS).toBe(21 * DAY);
    expect(checkRetentionPolicy({ historySeconds: 21 * DAY })).toEqual({
      historySeconds: 21 * DAY,
      attemptsSeconds: 21 * DAY,
      payloadsSeconds: undefined,
      messageLifetimeSeconds: 21 * DAY,
    });
    expect(checkRetentionPolicy({ ...POLICY, messageLifetimeSeconds: 4 * DAY })).toEqual({
      ...POLICY,
      messageLifetimeSeconds: 4 * DAY,
    });
  });

  it.each([
    ['no policy', undefined, 'policy'],
    ['an array', [], 'policy'],
    ['no history', {}, 'historySeconds'],
    ['a misspelt age', { historySeconds: 30 * DAY, attemptSeconds: DAY }, 'attemptSeconds'],
    ['a negative age', { historySeconds: -1 }, 'historySeconds'],
    ['NaN', { historySeconds: Number.NaN }, 'historySeconds'],
    ['Infinity', { historySeconds: 30 * DAY, payloadsSeconds: Number.POSITIVE_INFINITY }, 'payloadsSeconds'],
    ['a string', { historySeconds: '30d' }, 'historySeconds'],
    ['past 100 years', { historySeconds: 3_155_760_001 }, 'historySeconds'],
    [
      'a negative lifetime',
      { historySeconds: 30 * DAY, messageLifetimeSeconds: -5 },
      'messageLifetimeSeconds',
    ],
  ])('refuses %s', (_what, policy, field) => {
    expect(refusal(policy).field).toBe(field);
  });

  it('refuses a history shorter than the message lifetime: a late copy would be delivered again', () => {
    const { field, message } = refusal({ historySeconds: 20 * DAY });
    expect(field).toBe('historySeconds');
    expect(message).toContain('1728000 s, 20 d');
    expect(message).toContain('would be delivered again');
    expect(refusal({ historySeconds: DAY, messageLifetimeSeconds: DAY + 1 }).field).toBe('historySeconds');
    expect(checkRetentionPolicy({ historySeconds: DAY, messageLifetimeSeconds: DAY }).historySeconds).toBe(
      DAY,
    );
  });

  it('refuses attempts kept longer than the history, and takes them shorter or equal', () => {
    expect(refusal({ historySeconds: 30 * DAY, attemptsSeconds: 30 * DAY + 1 }).field).toBe(
      'attemptsSeconds',
    );
    expect(checkRetentionPolicy({ historySeconds: 30 * DAY, attemptsSeconds: 0 }).attemptsSeconds).toBe(0);
    expect(
      checkRetentionPolicy({ historySeconds: 30 * DAY, attemptsSeconds: 30 * DAY }).attemptsSeconds,
    ).toBe(30 * DAY);
  });

  it('refuses payloads pruned before a message that references them can have left the queue', () => {
    const { field, message } = refusal({ historySeconds: 30 * DAY, payloadsSeconds: 14 * DAY });
    expect(field).toBe('payloadsSeconds');
    expect(message).toContain('fails closed as missing');
    // Not tied to the history: payloads may go before the rows, once no message can need them.
    expect(
      checkRetentionPolicy({ historySeconds: 60 * DAY, payloadsSeconds: 21 * DAY }).payloadsSeconds,
    ).toBe(21 * DAY);
  });
});
