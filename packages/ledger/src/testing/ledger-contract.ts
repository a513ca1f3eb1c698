import { isQueueError } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimRequest, Ledger, LedgerRecord } from '../ledger';
import { describeBatchContract } from './batch-contract';
import { claimOf, DIGEST, LEASE_MS, OTHER_DIGEST, rejection } from './contract-fixtures';

export interface LedgerHarness {
  ledger: Ledger;
  /** Removes everything `open` created (file, schema); closes whatever is still open. */
  cleanup: () => Promise<void>;
  /** Opens another ledger on the same database / schema, running the migrations again. */
  reopen: () => Promise<Ledger>;
  /** The versions ledger_schema_migrations records, ascending. */
  appliedMigrations: () => Promise<number[]>;
}

/**
 * Opens an empty ledger on `clock`. `groupCommit: false` asks for the store's one-call-one-commit
 * path, the reference the batch properties compare against; stores without group commit ignore it.
 */
export type OpenLedger = (clock: VirtualClock, options?: { groupCommit?: false }) => Promise<LedgerHarness>;

/**
 * The one behavioural suite every ledger store passes. All times come from a VirtualClock, so
 * nothing here depends on how fast the machine is.
 */
export function describeLedgerContract(name: string, open: OpenLedger): void {
  describe(`ledger contract: ${name}`, () => {
    let clock: VirtualClock;
    let harness: LedgerHarness;
    let ledger: Ledger;

    beforeEach(async () => {
      clock = new VirtualClock();
      harness = await open(clock);
      ledger = harness.ledger;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    describe('claim', () => {
      it('takes the lease of an id never seen: attempt 1, processing, nothing settled', async () => {
        const t0 = clock.now();
        const result = await ledger.claim(claimOf('payment_1:settled:v1', 'worker-a'));
        const expected: LedgerRecord = {
          eventId: 'payment_1:settled:v1',
          payloadSha256: DIGEST,
          state: 'processing',
          attempts: 1,
          leaseOwner: 'worker-a',
          leaseUntil: t0 + LEASE_MS,
          lastOutcome: null,
          ambiguous: false,
          deliveredAt: null,
          retryAt: null,
          createdAt: t0,
          updatedAt: t0,
        };
        expect(result).toEqual({
          status: 'claimed',
          attempt: 1,
          leaseUntil: t0 + LEASE_MS,
          record: expected,
        });
        expect(await ledger.get('payment_1:settled:v1')).toEqual(expected);
      });

      it('returns undefined from get for an id never claimed', async () => {
        expect(await ledger.get('never-seen')).toBeUndefined();
      });

      it('short-circuits a delivered event: "delivered", no new attempt, nothing written', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(1000);
        const delivered = await ledger.complete({ eventId: 'e', owner: 'a', outcome: 'http 200' });
        expect(delivered).toMatchObject({
          state: 'delivered',
          attempts: 1,
          leaseOwner: null,
          leaseUntil: null,
          lastOutcome: 'http 200',
          deliveredAt: clock.now(),
          updatedAt: clock.now(),
        });
        await clock.advance(LEASE_MS * 10);
        const again = await ledger.claim(claimOf('e', 'b'));
        expect(again).toEqual({ status: 'delivered', record: delivered });
        expect(await ledger.get('e')).toEqual(delivered);
      });

      it('short-circuits a failed event: "failed", no new attempt', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const failed = await ledger.fail({ eventId: 'e', owner: 'a', outcome: 'http 410' });
        expect(failed).toMatchObject({
          state: 'failed',
          lastOutcome: 'http 410',
          deliveredAt: null,
          leaseOwner: null,
        });
        const again = await ledger.claim(claimOf('e', 'b'));
        expect(again).toEqual({ status: 'failed', record: failed });
        expect((await ledger.get('e'))!.attempts).toBe(1);
      });

      it('refuses a different digest with IDEMPOTENCY_CONFLICT naming only the event; the row is unchanged', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const before = await ledger.get('e');
        for (const owner of ['a', 'b']) {
          const error = await rejection(ledger.claim(claimOf('e', owner, { payloadSha256: OTHER_DIGEST })));
          expect(error.code).toBe('IDEMPOTENCY_CONFLICT');
          expect(error.retryable).toBe(false);
          expect(error.details).toEqual({ event_id: 'e' });
          expect(error.message).not.toContain(DIGEST);
          expect(error.message).not.toContain(OTHER_DIGEST);
        }
        expect(await ledger.get('e')).toEqual(before);
      });

      it('refuses a different digest even once the event is settled', async () => {
        await ledger.claim(claimOf('done', 'a'));
        await ledger.complete({ eventId: 'done', owner: 'a', outcome: 'http 200' });
        const settled = await ledger.get('done');
        const error = await rejection(ledger.claim(claimOf('done', 'b', { payloadSha256: OTHER_DIGEST })));
        expect(isQueueError(error, 'IDEMPOTENCY_CONFLICT')).toBe(true);
        expect(await ledger.get('done')).toEqual(settled);
      });

      it('answers "busy" while another owner holds a live lease, up to the last millisecond', async () => {
        const first = await ledger.claim(claimOf('e', 'a'));
        const before = await ledger.get('e');
        await clock.advance(LEASE_MS - 1);
        const busy = await ledger.claim(claimOf('e', 'b'));
        expect(busy).toEqual({
          status: 'busy',
          leaseUntil: (first as { leaseUntil: number }).leaseUntil,
          record: before,
        });
        expect(await ledger.get('e')).toEqual(before);
      });

      it('lets the same owner re-claim its live lease: same attempt, lease renewed, no attempt counted', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(10_000);
        const again = await ledger.claim(claimOf('e', 'a'));
        expect(again).toMatchObject({ status: 'claimed', attempt: 1, leaseUntil: clock.now() + LEASE_MS });
        expect(await ledger.get('e')).toMatchObject({
          attempts: 1,
          ambiguous: false,
          leaseOwner: 'a',
          leaseUntil: clock.now() + LEASE_MS,
          updatedAt: clock.now(),
        });
      });

      it('re-takes a lapsed lease: a new attempt, and the row is ambiguous (the first attempt recorded nothing)', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(LEASE_MS); // leaseUntil <= now: lapsed
        const retaken = await ledger.claim(claimOf('e', 'b'));
        expect(retaken).toMatchObject({ status: 'claimed', attempt: 2, leaseUntil: clock.now() + LEASE_MS });
        expect(await ledger.get('e')).toMatchObject({ attempts: 2, ambiguous: true, leaseOwner: 'b' });
        // Once ambiguous, always: settling does not clear it.
        const done = await ledger.complete({ eventId: 'e', owner: 'b', outcome: 'http 200' });
        expect(done).toMatchObject({ state: 'delivered', ambiguous: true, attempts: 2 });
      });

      it('treats the same owner coming back after its lease lapsed as a re-take too', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(LEASE_MS + 1);
        expect(await ledger.claim(claimOf('e', 'a'))).toMatchObject({ status: 'claimed', attempt: 2 });
        expect(await ledger.get('e')).toMatchObject({ attempts: 2, ambiguous: true });
      });

      it('re-claims after a release without marking it ambiguous (the attempt recorded its outcome)', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(2000);
        const retryAt = clock.now() + 60_000;
        const released = await ledger.release({ eventId: 'e', owner: 'a', outcome: 'http 503', retryAt });
        expect(released).toMatchObject({
          state: 'processing',
          attempts: 1,
          leaseOwner: null,
          leaseUntil: null,
          lastOutcome: 'http 503',
          retryAt,
          ambiguous: false,
          updatedAt: clock.now(),
        });
        // Before the old lease would have run out: a released lease is free at once.
        await clock.advance(1000);
        const again = await ledger.claim(claimOf('e', 'b'));
        expect(again).toMatchObject({ status: 'claimed', attempt: 2 });
        expect(await ledger.get('e')).toMatchObject({
          attempts: 2,
          ambiguous: false,
          leaseOwner: 'b',
          lastOutcome: 'http 503',
          retryAt: null,
        });
      });

      it('counts every claim as an attempt across releases and lapses', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await ledger.release({ eventId: 'e', owner: 'a', outcome: 'timeout' });
        await ledger.claim(claimOf('e', 'b'));
        await clock.advance(LEASE_MS);
        await ledger.claim(claimOf('e', 'c'));
        const record = await ledger.complete({ eventId: 'e', owner: 'c', outcome: 'http 200' });
        expect(record).toMatchObject({
          attempts: 3,
          ambiguous: true,
          state: 'delivered',
          lastOutcome: 'http 200',
        });
      });

      it('refuses malformed requests with INVALID_ARGUMENT and writes nothing', async () => {
        const bad: ClaimRequest[] = [
          claimOf('', 'a'),
          claimOf('e', ''),
          claimOf('e', 'a', { leaseSeconds: 0 }),
          claimOf('e', 'a', { leaseSeconds: Number.NaN }),
          claimOf('e', 'a', { payloadSha256: 'not-a-digest' }),
          claimOf('x'.repeat(513), 'a'),
        ];
        for (const request of bad) {
          expect((await rejection(ledger.claim(request))).code).toBe('INVALID_ARGUMENT');
        }
        expect(await ledger.get('e')).toBeUndefined();
      });
    });

    describe('complete / fail / release', () => {
      it('settles a lapsed lease nobody re-took (like an SQS receipt)', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(LEASE_MS * 3);
        expect(await ledger.complete({ eventId: 'e', owner: 'a', outcome: 'http 200' })).toMatchObject({
          state: 'delivered',
          ambiguous: false,
        });
      });

      it('throws LEASE_LOST for an owner that does not hold the lease, and changes nothing', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const before = await ledger.get('e');
        const attempts = [
          () => ledger.complete({ eventId: 'e', owner: 'b', outcome: 'http 200' }),
          () => ledger.fail({ eventId: 'e', owner: 'b', outcome: 'http 410' }),
          () => ledger.release({ eventId: 'e', owner: 'b', outcome: 'http 503' }),
          () => ledger.complete({ eventId: 'unknown', owner: 'a', outcome: 'http 200' }),
        ];
        for (const attempt of attempts) {
          const error = await rejection(attempt());
          expect(error.code).toBe('LEASE_LOST');
          expect(error.retryable).toBe(false);
        }
        expect(await ledger.get('e')).toEqual(before);
      });

      it('throws LEASE_LOST to the first owner once someone else re-took the lapsed lease', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await clock.advance(LEASE_MS + 5);
        await ledger.claim(claimOf('e', 'b'));
        for (const settle of [ledger.complete, ledger.fail, ledger.release]) {
          const error = await rejection(
            settle.call(ledger, { eventId: 'e', owner: 'a', outcome: 'http 200' }),
          );
          expect(error.code).toBe('LEASE_LOST');
          expect(error.details).toEqual({ event_id: 'e' });
        }
        expect(await ledger.get('e')).toMatchObject({
          state: 'processing',
          leaseOwner: 'b',
          lastOutcome: null,
        });
      });

      it('throws LEASE_LOST once the event is settled or released', async () => {
        await ledger.claim(claimOf('d', 'a'));
        await ledger.complete({ eventId: 'd', owner: 'a', outcome: 'http 200' });
        expect(
          (await rejection(ledger.complete({ eventId: 'd', owner: 'a', outcome: 'http 200' }))).code,
        ).toBe('LEASE_LOST');
        await ledger.claim(claimOf('r', 'a'));
        await ledger.release({ eventId: 'r', owner: 'a', outcome: 'http 503' });
        expect((await rejection(ledger.fail({ eventId: 'r', owner: 'a', outcome: 'http 410' }))).code).toBe(
          'LEASE_LOST',
        );
      });

      it('complete and fail clear the retry time a release set, whatever the request carries', async () => {
        for (const settle of ['complete', 'fail'] as const) {
          const id = `clears-${settle}`;
          await ledger.claim(claimOf(id, 'a'));
          await ledger.release({
            eventId: id,
            owner: 'a',
            outcome: 'http 503',
            retryAt: clock.now() + 60_000,
          });
          await ledger.claim(claimOf(id, 'a'));
          // A JavaScript caller may pass a release request to complete or fail.
          const request = { eventId: id, owner: 'a', outcome: 'done', retryAt: clock.now() + 1 };
          const settled = await ledger[settle](request);
          expect(settled.retryAt).toBeNull();
          expect((await ledger.get(id))?.retryAt).toBeNull();
        }
      });

      it('release without retryAt leaves it unset; over-long outcomes are cut, not refused', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const released = await ledger.release({ eventId: 'e', owner: 'a', outcome: 'x'.repeat(5000) });
        expect(released.retryAt).toBeNull();
        expect(released.lastOutcome!.length).toBe(1000);
      });
    });

    describe('scanPending', () => {
      async function seed(): Promise<void> {
        // Created one second apart, in an order that differs from the ids' order.
        for (const id of ['c', 'a', 'd', 'b', 'e']) {
          await ledger.claim(claimOf(id, 'w'));
          await clock.advance(1000);
        }
        await ledger.complete({ eventId: 'd', owner: 'w', outcome: 'http 200' }); // terminal: never pending
        await ledger.fail({ eventId: 'e', owner: 'w', outcome: 'http 410' }); // terminal too
        await ledger.release({ eventId: 'a', owner: 'w', outcome: 'http 503' }); // updated now, still pending
      }

      it('lists processing rows last updated before the bound, oldest created first, never terminal ones', async () => {
        await seed();
        await clock.advance(60_000);
        const ids = (await ledger.scanPending({ olderThanSeconds: 30, limit: 100 })).map((r) => r.eventId);
        expect(ids).toEqual(['c', 'a', 'b']);
      });

      it('applies the bound strictly: a row exactly that old is not yet listed', async () => {
        await ledger.claim(claimOf('only', 'w'));
        await clock.advance(30_000);
        expect(await ledger.scanPending({ olderThanSeconds: 30, limit: 10 })).toEqual([]);
        await clock.advance(1);
        expect((await ledger.scanPending({ olderThanSeconds: 30, limit: 10 })).map((r) => r.eventId)).toEqual(
          ['only'],
        );
      });

      it('leaves out rows updated within the bound', async () => {
        await seed();
        await clock.advance(10_000);
        // 'a' was released 10 s ago; 'c' and 'b' were claimed 15 s and 12 s ago.
        expect(
          (await ledger.scanPending({ olderThanSeconds: 11, limit: 100 })).map((r) => r.eventId),
        ).toEqual(['c', 'b']);
      });

      it('pages with limit and after, and a row claimed between pages does not make it skip others', async () => {
        const ids = Array.from({ length: 7 }, (_, i) => `evt-${String(7 - i).padStart(2, '0')}`);
        for (const id of ids) {
          await ledger.claim(claimOf(id, 'w'));
          await clock.advance(1);
        }
        await clock.advance(LEASE_MS * 2);
        const first = await ledger.scanPending({ olderThanSeconds: 60, limit: 3 });
        expect(first.map((r) => r.eventId)).toEqual(ids.slice(0, 3));
        // The last row of the page is re-taken (its updatedAt moves) before the next page.
        await ledger.claim(claimOf(first[2]!.eventId, 'other'));
        const second = await ledger.scanPending({ olderThanSeconds: 60, limit: 3, after: first[2]!.eventId });
        expect(second.map((r) => r.eventId)).toEqual(ids.slice(3, 6));
        const third = await ledger.scanPending({ olderThanSeconds: 60, limit: 3, after: second[2]!.eventId });
        expect(third.map((r) => r.eventId)).toEqual(ids.slice(6));
        expect(
          await ledger.scanPending({ olderThanSeconds: 60, limit: 3, after: third[0]!.eventId }),
        ).toEqual([]);
      });

      it('returns whole records', async () => {
        await ledger.claim(claimOf('e', 'w'));
        await clock.advance(LEASE_MS + 1);
        expect(await ledger.scanPending({ olderThanSeconds: 1, limit: 1 })).toEqual([await ledger.get('e')]);
      });

      it('refuses a limit that is not a positive integer', async () => {
        for (const limit of [0, -1, 1.5, Number.NaN]) {
          expect((await rejection(ledger.scanPending({ olderThanSeconds: 0, limit }))).code).toBe(
            'INVALID_ARGUMENT',
          );
        }
        expect((await rejection(ledger.scanPending({ olderThanSeconds: -1, limit: 1 }))).code).toBe(
          'INVALID_ARGUMENT',
        );
      });
    });

    describe('scanAmbiguous', () => {
      it('lists ambiguous rows of any state by id, in pages', async () => {
        for (const id of ['m', 'k', 'z', 'q']) await ledger.claim(claimOf(id, 'a'));
        await ledger.claim(claimOf('clean', 'a'));
        await ledger.complete({ eventId: 'clean', owner: 'a', outcome: 'http 200' });
        await clock.advance(LEASE_MS);
        for (const id of ['m', 'k', 'z', 'q']) await ledger.claim(claimOf(id, 'b'));
        await ledger.complete({ eventId: 'k', owner: 'b', outcome: 'http 200' });
        await ledger.fail({ eventId: 'z', owner: 'b', outcome: 'http 410' });

        const all = await ledger.scanAmbiguous({ limit: 10 });
        expect(all.map((r) => [r.eventId, r.state])).toEqual([
          ['k', 'delivered'],
          ['m', 'processing'],
          ['q', 'processing'],
          ['z', 'failed'],
        ]);
        expect(all.every((r) => r.ambiguous)).toBe(true);
        const page1 = await ledger.scanAmbiguous({ limit: 3 });
        const page2 = await ledger.scanAmbiguous({ limit: 3, after: page1.at(-1)!.eventId });
        expect([...page1, ...page2]).toEqual(all);
        expect(page2.map((r) => r.eventId)).toEqual(['z']);
      });

      it('is empty when nothing is ambiguous', async () => {
        await ledger.claim(claimOf('e', 'a'));
        expect(await ledger.scanAmbiguous({ limit: 5 })).toEqual([]);
      });
    });

    describe('settling an ambiguous attempt', () => {
      it('release, fail and complete with ambiguous: true mark the row; a later clean settle never clears it', async () => {
        await ledger.claim(claimOf('timed-out', 'a'));
        const released = await ledger.release({
          eventId: 'timed-out',
          owner: 'a',
          outcome: 'request timeout after 30000 ms',
          ambiguous: true,
        });
        expect(released).toMatchObject({ state: 'processing', ambiguous: true, leaseOwner: null });
        await ledger.claim(claimOf('timed-out', 'b'));
        const delivered = await ledger.complete({ eventId: 'timed-out', owner: 'b', outcome: 'http 200' });
        expect(delivered).toMatchObject({ state: 'delivered', ambiguous: true, attempts: 2 });
        expect(await ledger.get('timed-out')).toEqual(delivered);

        await ledger.claim(claimOf('cut-off', 'a'));
        expect(
          await ledger.fail({ eventId: 'cut-off', owner: 'a', outcome: 'connection reset', ambiguous: true }),
        ).toMatchObject({ state: 'failed', ambiguous: true });
        await ledger.claim(claimOf('clean', 'a'));
        expect(
          await ledger.release({ eventId: 'clean', owner: 'a', outcome: 'http 503', ambiguous: false }),
        ).toMatchObject({ ambiguous: false });

        expect((await ledger.scanAmbiguous({ limit: 10 })).map((r) => r.eventId)).toEqual([
          'cut-off',
          'timed-out',
        ]);
      });

      it('a settle that loses its lease marks nothing', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const error = await rejection(
          ledger.release({ eventId: 'e', owner: 'b', outcome: 'timeout', ambiguous: true }),
        );
        expect(error.code).toBe('LEASE_LOST');
        expect(await ledger.get('e')).toMatchObject({ ambiguous: false });
      });

      it('refuses an ambiguous flag that is not a boolean', async () => {
        await ledger.claim(claimOf('e', 'a'));
        const request = {
          eventId: 'e',
          owner: 'a',
          outcome: 'timeout',
          ambiguous: 'yes' as unknown as boolean,
        };
        expect((await rejection(ledger.release(request))).code).toBe('INVALID_ARGUMENT');
        expect(await ledger.get('e')).toMatchObject({ ambiguous: false, leaseOwner: 'a' });
      });
    });

    describe('list', () => {
      async function seed(): Promise<void> {
        for (const id of ['m', 'b', 'x', 'a', 'q', 'Z']) await ledger.claim(claimOf(id, 'w'));
        await ledger.complete({ eventId: 'b', owner: 'w', outcome: 'http 200' });
        await ledger.complete({ eventId: 'q', owner: 'w', outcome: 'http 200' });
        await ledger.fail({ eventId: 'x', owner: 'w', outcome: 'http 410' });
      }

      it('lists every row by event id in code-point order, as whole records', async () => {
        await seed();
        const all = await ledger.list({ limit: 100 });
        expect(all.map((r) => r.eventId)).toEqual(['Z', 'a', 'b', 'm', 'q', 'x']);
        for (const record of all) expect(record).toEqual(await ledger.get(record.eventId));
      });

      it('pages with limit and after, ending with an empty page', async () => {
        await seed();
        const first = await ledger.list({ limit: 4 });
        const second = await ledger.list({ limit: 4, after: first.at(-1)!.eventId });
        expect([...first, ...second].map((r) => r.eventId)).toEqual(['Z', 'a', 'b', 'm', 'q', 'x']);
        expect(second).toHaveLength(2);
        expect(await ledger.list({ limit: 4, after: 'x' })).toEqual([]);
        // A cursor that names no row (pruned meanwhile) still resumes in order.
        expect((await ledger.list({ limit: 2, after: 'c' })).map((r) => r.eventId)).toEqual(['m', 'q']);
      });

      it('lists only the rows in a state when asked, paged the same way', async () => {
        await seed();
        const delivered = await ledger.list({ limit: 1, state: 'delivered' });
        expect(delivered.map((r) => r.eventId)).toEqual(['b']);
        expect(
          (await ledger.list({ limit: 10, state: 'delivered', after: 'b' })).map((r) => r.eventId),
        ).toEqual(['q']);
        expect((await ledger.list({ limit: 10, state: 'processing' })).map((r) => r.eventId)).toEqual([
          'Z',
          'a',
          'm',
        ]);
        expect((await ledger.list({ limit: 10, state: 'failed' })).map((r) => r.eventId)).toEqual(['x']);
      });

      it('is empty on an empty ledger', async () => {
        expect(await ledger.list({ limit: 10 })).toEqual([]);
      });

      it('refuses a bad limit, cursor or state with INVALID_ARGUMENT', async () => {
        const bad = [
          { limit: 0 },
          { limit: 10_001 },
          { limit: 1.5 },
          { limit: 10, after: '' },
          { limit: 10, state: 'pending' },
          null,
        ] as unknown as Parameters<NonNullable<Ledger['list']>>[0][];
        for (const request of bad) {
          expect((await rejection(ledger.list(request))).code).toBe('INVALID_ARGUMENT');
        }
      });
    });

    describe('prune', () => {
      it('deletes only terminal rows older than the bound and returns how many', async () => {
        for (const id of ['old-delivered', 'old-failed', 'old-pending', 'old-released']) {
          await ledger.claim(claimOf(id, 'a'));
        }
        await ledger.complete({ eventId: 'old-delivered', owner: 'a', outcome: 'http 200' });
        await ledger.fail({ eventId: 'old-failed', owner: 'a', outcome: 'http 410' });
        await ledger.release({ eventId: 'old-released', owner: 'a', outcome: 'http 503' });
        await clock.advance(3_600_000);
        await ledger.claim(claimOf('new-delivered', 'a'));
        await ledger.complete({ eventId: 'new-delivered', owner: 'a', outcome: 'http 200' });
        await clock.advance(1000);

        expect(await ledger.prune({ olderThanSeconds: 3600 })).toBe(2);
        expect(await ledger.get('old-delivered')).toBeUndefined();
        expect(await ledger.get('old-failed')).toBeUndefined();
        for (const kept of ['old-pending', 'old-released', 'new-delivered']) {
          expect(await ledger.get(kept)).toBeDefined();
        }
        expect(await ledger.prune({ olderThanSeconds: 3600 })).toBe(0);
        expect(await ledger.prune({ olderThanSeconds: 0 })).toBe(1);
        expect(await ledger.get('new-delivered')).toBeUndefined();
      });

      it('lets a pruned id be claimed afresh', async () => {
        await ledger.claim(claimOf('e', 'a'));
        await ledger.complete({ eventId: 'e', owner: 'a', outcome: 'http 200' });
        await clock.advance(1);
        expect(await ledger.prune({ olderThanSeconds: 0 })).toBe(1);
        expect(await ledger.claim(claimOf('e', 'b'))).toMatchObject({ status: 'claimed', attempt: 1 });
      });
    });

    describe('batches (claimMany / settleMany) and group commit', () => {
      describeBatchContract(open, () => ({ clock, harness, ledger }));
    });

    describe('lifecycle', () => {
      it('runs migrations idempotently: opening the same database twice more keeps data and versions', async () => {
        await ledger.claim(claimOf('kept', 'a'));
        const before = await harness.appliedMigrations();
        // Every version from 1, once each: the store's own count of migrations.
        expect(before).toEqual(before.map((_, index) => index + 1));
        expect(before.length).toBeGreaterThan(0);
        const second = await harness.reopen();
        const third = await harness.reopen();
        expect(await harness.appliedMigrations()).toEqual(before);
        expect(await second.get('kept')).toEqual(await ledger.get('kept'));
        expect(await third.claim(claimOf('kept', 'b'))).toMatchObject({ status: 'busy' });
        await second.close();
        await third.close();
      });

      it('refuses calls after close with CLOSED; close is idempotent', async () => {
        await ledger.close();
        await ledger.close();
        expect((await rejection(ledger.get('e'))).code).toBe('CLOSED');
        expect((await rejection(ledger.claim(claimOf('e', 'a')))).code).toBe('CLOSED');
      });
    });
  });
}
