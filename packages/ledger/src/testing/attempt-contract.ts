import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AttemptLog, hasAttemptLog } from '../attempts/attempt-log';
import {
  type AttemptInput,
  type AttemptRecord,
  type AttemptResponseSample,
  MAX_RESPONSE_SAMPLE_CHARS,
} from '../attempts/attempt-record';
import type { Ledger, LedgerRecord, ReleaseRequest, SettleEntry } from '../ledger';
import { claimOf, LEASE_MS, rejection } from './contract-fixtures';
import type { LedgerHarness, OpenLedger } from './ledger-contract';

/** An attempt as the webhook worker would pass it: started `durationMs` before now. */
function attemptAt(clock: VirtualClock, extra: Partial<AttemptInput> = {}): AttemptInput {
  const durationMs = extra.durationMs ?? 120;
  return { startedAt: clock.now() - durationMs, durationMs, destinationId: 'dest-1', ...extra };
}

/** The outcome a worker writes for the answer behind each settle these cases make. */
const OUTCOME_OF = { complete: 'http 200', release: 'http 503' } as const;

const MODES: [string, { groupCommit?: false }][] = [
  ['grouped', {}],
  ['one commit per call', { groupCommit: false }],
];

/**
 * The attempt log as every store that keeps one must have it (`AttemptLog` beside `Ledger`): each
 * attempt recorded in its settle's commit under the claim number the row holds, never for a settle
 * that lost its lease, bounded, and with its own retention. Runs on the store's grouped path and
 * on its one-commit-per-call path, which write attempts differently.
 */
export function describeAttemptContract(name: string, open: OpenLedger): void {
  describe.each(MODES)(`attempt log contract: ${name} (%s)`, (_mode, options) => {
    let clock: VirtualClock;
    let harness: LedgerHarness;
    let ledger: Ledger & AttemptLog;

    beforeEach(async () => {
      clock = new VirtualClock();
      harness = await open(clock, options);
      if (!hasAttemptLog(harness.ledger)) throw new Error(`${name} has no attempt log`);
      ledger = harness.ledger;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    const list = (eventId: string) => ledger.listAttempts({ eventId, limit: 100 });
    /** One send of `eventId` by worker `w`: claimed, then settled with its attempt. */
    const attemptOnce = async (
      eventId: string,
      settle: keyof typeof OUTCOME_OF,
      attempt: Partial<AttemptInput> = {},
    ): Promise<void> => {
      await ledger.claim(claimOf(eventId, 'w'));
      await ledger[settle]({
        eventId,
        owner: 'w',
        outcome: OUTCOME_OF[settle],
        attempt: attemptAt(clock, attempt),
      });
    };

    it('records every attempt of a retried event, in claim order, each with its own fields', async () => {
      const t0 = clock.now();
      // Three workers in turn: a 503, a timeout after the request was sent, then the answer. Each
      // claims `waitMs` after the one before settled, and settles its attempt's duration later.
      const tries: {
        waitMs: number;
        owner: string;
        settle: 'release' | 'complete';
        request: Omit<ReleaseRequest, 'eventId' | 'owner'>;
        attempt: Partial<AttemptInput> & { durationMs: number };
      }[] = [
        {
          waitMs: 0,
          owner: 'w1',
          settle: 'release',
          request: { outcome: 'http 503', retryAt: t0 + 1250 },
          attempt: {
            durationMs: 250,
            statusCode: 503,
            errorClass: 'http',
            responseSample: { body: 'busy, come back later', truncated: false },
          },
        },
        {
          waitMs: 1000,
          owner: 'w2',
          settle: 'release',
          request: { outcome: 'request timeout, after the request was sent', ambiguous: true },
          attempt: { durationMs: 5000, errorClass: 'timeout', destinationId: null },
        },
        {
          waitMs: 1000,
          owner: 'w3',
          settle: 'complete',
          request: { outcome: 'http 200' },
          attempt: {
            durationMs: 40,
            statusCode: 200,
            responseSample: { body: '{"ok":true}', truncated: true },
          },
        },
      ];
      let done: LedgerRecord | undefined;
      for (const { waitMs, owner, settle, request, attempt } of tries) {
        await clock.advance(waitMs);
        await ledger.claim(claimOf('pay_1', owner));
        await clock.advance(attempt.durationMs);
        done = await ledger[settle]({
          eventId: 'pay_1',
          owner,
          ...request,
          attempt: attemptAt(clock, attempt),
        });
      }
      expect(done).toMatchObject({ state: 'delivered', attempts: 3, ambiguous: true });

      const expected: AttemptRecord[] = [
        {
          eventId: 'pay_1',
          attempt: 1,
          startedAt: t0,
          durationMs: 250,
          outcome: 'retry',
          statusCode: 503,
          errorClass: 'http',
          ambiguous: false,
          responseSample: { body: 'busy, come back later', truncated: false },
          destinationId: 'dest-1',
        },
        {
          eventId: 'pay_1',
          attempt: 2,
          startedAt: t0 + 1250,
          durationMs: 5000,
          outcome: 'retry',
          statusCode: null,
          errorClass: 'timeout',
          ambiguous: true,
          responseSample: null,
          destinationId: null,
        },
        {
          eventId: 'pay_1',
          // The row stays ambiguous for good; this attempt had its answer.
          attempt: 3,
          startedAt: t0 + 7250,
          durationMs: 40,
          outcome: 'delivered',
          statusCode: 200,
          errorClass: null,
          ambiguous: false,
          responseSample: { body: '{"ok":true}', truncated: true },
          destinationId: 'dest-1',
        },
      ];
      expect(await list('pay_1')).toEqual(expected);
      // Paged by claim number.
      expect(await ledger.listAttempts({ eventId: 'pay_1', limit: 2 })).toEqual(expected.slice(0, 2));
      expect(await ledger.listAttempts({ eventId: 'pay_1', limit: 2, fromAttempt: 3 })).toEqual(
        expected.slice(2),
      );
      expect(await list('another-event')).toEqual([]);
    });

    it('records a failed attempt as failed, and nothing for a settle without an attempt', async () => {
      await ledger.claim(claimOf('gone', 'w'));
      await ledger.fail({
        eventId: 'gone',
        owner: 'w',
        outcome: 'http 410',
        attempt: attemptAt(clock, { statusCode: 410, errorClass: 'http' }),
      });
      expect(await list('gone')).toMatchObject([{ attempt: 1, outcome: 'failed', statusCode: 410 }]);

      await ledger.claim(claimOf('silent', 'w'));
      await ledger.complete({ eventId: 'silent', owner: 'w', outcome: 'http 200' });
      expect(await list('silent')).toEqual([]);
    });

    it('writes no attempt for a settle that lost its lease; the claim that lapsed leaves a gap', async () => {
      await ledger.claim(claimOf('e', 'a'));
      await clock.advance(LEASE_MS + 1);
      await ledger.claim(claimOf('e', 'b'));
      for (const settle of ['complete', 'fail', 'release'] as const) {
        const error = await rejection(
          ledger[settle]({ eventId: 'e', owner: 'a', outcome: 'late', attempt: attemptAt(clock) }),
        );
        expect(error.code).toBe('LEASE_LOST');
      }
      const lost = await ledger.settleMany([
        { kind: 'complete', eventId: 'e', owner: 'a', outcome: 'late', attempt: attemptAt(clock) },
        { kind: 'complete', eventId: 'never-claimed', owner: 'a', outcome: 'x', attempt: attemptAt(clock) },
      ]);
      expect(lost.map((outcome) => (outcome.ok ? 'ok' : outcome.error.code))).toEqual([
        'LEASE_LOST',
        'LEASE_LOST',
      ]);
      expect(await list('e')).toEqual([]);
      expect(await list('never-claimed')).toEqual([]);

      await ledger.complete({
        eventId: 'e',
        owner: 'b',
        outcome: 'http 200',
        attempt: attemptAt(clock, { statusCode: 200 }),
      });
      // Claim 1 lapsed without a settle: its attempt is the row's ambiguity, not a log entry.
      expect((await list('e')).map((each) => each.attempt)).toEqual([2]);
    });

    it('settleMany records the attempts of the entries it settles, each under its own claim', async () => {
      for (const id of ['x', 'y', 'z']) await ledger.claim(claimOf(id, 'w'));
      // y's first claim lapses and is re-taken: its attempt is number 2.
      await clock.advance(LEASE_MS + 1);
      await ledger.claim(claimOf('y', 'w2'));
      for (const id of ['x', 'z']) await ledger.claim(claimOf(id, 'w'));
      const entries: SettleEntry[] = [
        { kind: 'complete', eventId: 'x', owner: 'w', outcome: 'http 200', attempt: attemptAt(clock) },
        {
          kind: 'release',
          eventId: 'y',
          owner: 'w2',
          outcome: 'http 503',
          attempt: attemptAt(clock, { statusCode: 503, errorClass: 'http' }),
        },
        // No attempt given: none recorded, in a batch that records others.
        { kind: 'fail', eventId: 'z', owner: 'w', outcome: 'http 400' },
        { kind: 'complete', eventId: 'x', owner: 'w', outcome: 'again', attempt: attemptAt(clock) },
      ];
      const outcomes = await ledger.settleMany(entries);
      expect(outcomes.map((outcome) => (outcome.ok ? outcome.value.state : outcome.error.code))).toEqual([
        'delivered',
        'processing',
        'failed',
        'LEASE_LOST',
      ]);
      expect(await list('x')).toMatchObject([{ attempt: 2, outcome: 'delivered' }]);
      expect(await list('y')).toMatchObject([{ attempt: 2, outcome: 'retry', statusCode: 503 }]);
      expect(await list('z')).toEqual([]);
    });

    it('records the attempts of concurrent settles (joined into one commit when grouped)', async () => {
      const ids = Array.from({ length: 20 }, (_, index) => `many-${index}`);
      await ledger.claimMany(ids.map((id) => claimOf(id, 'w')));
      await Promise.all(
        ids.map((eventId, index) =>
          ledger.complete({
            eventId,
            owner: 'w',
            outcome: 'http 200',
            attempt: attemptAt(clock, { statusCode: 200, durationMs: index }),
          }),
        ),
      );
      for (const [index, eventId] of ids.entries()) {
        expect(await list(eventId)).toMatchObject([{ attempt: 1, durationMs: index, statusCode: 200 }]);
      }
    });

    it('bounds the response sample and strips control characters, keeping line breaks', async () => {
      // [event id, the sample sent, the sample kept]
      const samples: [string, AttemptInput['responseSample'], AttemptResponseSample][] = [
        [
          'long',
          { body: 'a'.repeat(MAX_RESPONSE_SAMPLE_CHARS + 500) },
          { body: 'a'.repeat(MAX_RESPONSE_SAMPLE_CHARS), truncated: true },
        ],
        // An emoji across the bound: cut before it, never through it.
        [
          'pair',
          { body: `${'b'.repeat(MAX_RESPONSE_SAMPLE_CHARS - 1)}😀tail` },
          { body: 'b'.repeat(MAX_RESPONSE_SAMPLE_CHARS - 1), truncated: true },
        ],
        [
          'control',
          { body: 'ok\u0000\u001b[31mred\u0007\r\n\tnext\u007f\u0085line' },
          { body: 'ok[31mred\r\n\tnextline', truncated: false },
        ],
        [
          'exact',
          { body: 'c'.repeat(MAX_RESPONSE_SAMPLE_CHARS), truncated: false },
          { body: 'c'.repeat(MAX_RESPONSE_SAMPLE_CHARS), truncated: false },
        ],
        ['lone', { body: 'x\ud800y' }, { body: 'x\ufffdy', truncated: false }],
      ];
      for (const [eventId, responseSample] of samples)
        await attemptOnce(eventId, 'complete', { responseSample });
      for (const [eventId, , kept] of samples) {
        expect.soft((await list(eventId))[0]?.responseSample, eventId).toEqual(kept);
      }
    });

    it('refuses a malformed attempt with INVALID_ARGUMENT naming the field, and settles nothing', async () => {
      await ledger.claim(claimOf('e', 'w'));
      const before = await ledger.get('e');
      const bad: [string, unknown][] = [
        ['attempt', 'yes'],
        ['attempt.startedAt', { ...attemptAt(clock), startedAt: -1 }],
        ['attempt.startedAt', { ...attemptAt(clock), startedAt: 1.5 }],
        ['attempt.startedAt', { durationMs: 1 }],
        ['attempt.durationMs', { ...attemptAt(clock), durationMs: Number.NaN }],
        ['attempt.durationMs', { ...attemptAt(clock), durationMs: -3 }],
        ['attempt.statusCode', { ...attemptAt(clock), statusCode: 99 }],
        ['attempt.statusCode', { ...attemptAt(clock), statusCode: 600 }],
        ['attempt.statusCode', { ...attemptAt(clock), statusCode: '200' }],
        ['attempt.errorClass', { ...attemptAt(clock), errorClass: 'Timeout' }],
        ['attempt.errorClass', { ...attemptAt(clock), errorClass: 'connection reset by peer' }],
        ['attempt.errorClass', { ...attemptAt(clock), errorClass: 'x'.repeat(33) }],
        ['attempt.errorClass', { ...attemptAt(clock), errorClass: '' }],
        ['attempt.responseSample', { ...attemptAt(clock), responseSample: 'just text' }],
        ['attempt.responseSample', { ...attemptAt(clock), responseSample: { body: 5 } }],
        [
          'attempt.responseSample.truncated',
          { ...attemptAt(clock), responseSample: { body: '', truncated: 1 } },
        ],
        ['attempt.destinationId', { ...attemptAt(clock), destinationId: '' }],
        ['attempt.destinationId', { ...attemptAt(clock), destinationId: 'd'.repeat(257) }],
        ['attempt.destinationId', { ...attemptAt(clock), destinationId: 'a\nb' }],
        ['attempt.destinationId', { ...attemptAt(clock), destinationId: 'a\udc00' }],
      ];
      for (const [field, attempt] of bad) {
        const request = { eventId: 'e', owner: 'w', outcome: 'http 200', attempt: attempt as AttemptInput };
        const error = await rejection(ledger.complete(request));
        expect(error.code, `${field}: ${JSON.stringify(attempt)}`).toBe('INVALID_ARGUMENT');
        expect(error.details).toEqual({ event_id: 'e', field });
        const [batched] = await ledger.settleMany([{ kind: 'complete', ...request }]);
        expect(batched).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', details: { field } } });
      }
      expect(await ledger.get('e')).toEqual(before);
      expect(await list('e')).toEqual([]);
      // The bounds themselves are accepted.
      const edge = attemptAt(clock, {
        statusCode: 599,
        errorClass: `a${'-'.repeat(31)}`,
        destinationId: 'd'.repeat(256),
      });
      await ledger.complete({ eventId: 'e', owner: 'w', outcome: 'http 599', attempt: edge });
      expect(await list('e')).toMatchObject([
        { statusCode: 599, errorClass: edge.errorClass, destinationId: edge.destinationId },
      ]);
    });

    it('refuses bad listAttempts and pruneAttempts requests with INVALID_ARGUMENT', async () => {
      const listing: unknown[] = [
        undefined,
        { limit: 10 },
        { eventId: '', limit: 10 },
        { eventId: 'e', limit: 0 },
        { eventId: 'e', limit: 10_001 },
        { eventId: 'e', limit: 10, fromAttempt: 0 },
        { eventId: 'e', limit: 10, fromAttempt: 1.5 },
      ];
      for (const request of listing) {
        const error = await rejection(ledger.listAttempts(request as never));
        expect(error.code, JSON.stringify(request)).toBe('INVALID_ARGUMENT');
      }
      for (const request of [undefined, {}, { olderThanSeconds: -1 }, { olderThanSeconds: Number.NaN }]) {
        const error = await rejection(ledger.pruneAttempts(request as never));
        expect(error.code, JSON.stringify(request)).toBe('INVALID_ARGUMENT');
      }
    });

    it('pruneAttempts deletes attempts older than the bound by when they started, whatever the state', async () => {
      const t0 = clock.now();
      // One attempt a minute: pending-1 and pending-2 of a row still processing, done-1 delivered.
      for (const [eventId, settle] of [
        ['pending', 'release'],
        ['pending', 'release'],
        ['done', 'complete'],
      ] as const) {
        await attemptOnce(eventId, settle, { durationMs: 0 });
        await clock.advance(60_000);
      }
      // now t0 + 180 s: the attempts are 180, 120 and 60 s old.
      expect(await ledger.pruneAttempts({ olderThanSeconds: 200 })).toBe(0);
      // Strict, as prune is: an attempt exactly 120 s old is not older than 120 s.
      expect(await ledger.pruneAttempts({ olderThanSeconds: 120 })).toBe(1);
      expect(await list('pending')).toMatchObject([{ attempt: 2, startedAt: t0 + 60_000 }]);
      expect(await ledger.pruneAttempts({ olderThanSeconds: 60 })).toBe(1);
      expect(await list('pending')).toEqual([]);
      expect(await list('done')).toMatchObject([{ attempt: 1 }]);
      // The rows themselves stay: an attempt's retention is its own.
      expect(await ledger.get('pending')).toMatchObject({ state: 'processing', attempts: 2 });
      expect(await ledger.get('done')).toMatchObject({ state: 'delivered' });
      expect(await ledger.pruneAttempts({ olderThanSeconds: 0 })).toBe(1);
      expect(await ledger.pruneAttempts({ olderThanSeconds: 0 })).toBe(0);
    });

    it("prune of terminal rows deletes their attempts too; a pruned id's new claims log afresh", async () => {
      for (const [eventId, settle] of [
        ['old', 'release'],
        ['old', 'complete'],
        ['open', 'release'],
      ] as const) {
        await attemptOnce(eventId, settle);
      }
      await clock.advance(10_000);

      expect(await ledger.prune({ olderThanSeconds: 5 })).toBe(1);
      expect(await list('old')).toEqual([]);
      expect(await list('open')).toMatchObject([{ attempt: 1 }]);

      // Attempt 1 again: had the old attempt 1 been left behind, this one would not be recorded.
      await attemptOnce('old', 'complete', { statusCode: 201 });
      expect(await list('old')).toMatchObject([{ attempt: 1, statusCode: 201 }]);
    });
  });
}
