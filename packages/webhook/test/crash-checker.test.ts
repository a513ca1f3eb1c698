import { VirtualClock } from '@queueport/core/testing';
import type { LedgerRecord } from '@queueport/ledger';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { classify, type EventHistory, observeLedger } from '@queueport/webhook/conformance';
import { describe, expect, it } from 'vitest';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

const delivered = { state: 'delivered', payloadSha256: A } as LedgerRecord;

const history = (extra: Partial<EventHistory>): EventHistory => ({
  eventId: 'evt',
  effects: 1,
  effectDigests: [A],
  dedupeKeys: ['evt'],
  crashes: 0,
  record: delivered,
  enqueuedDigests: [A],
  refusedDigests: [],
  acceptedConflicts: 0,
  overlappingClaims: 0,
  leftoverDigests: [],
  ...extra,
});

describe('classify', () => {
  it.each<[string, Partial<EventHistory>, string]>([
    ['one effect, no crash', {}, 'delivered-once'],
    ['one effect after a crash', { crashes: 1 }, 'recovered'],
    ['no effect', { effects: 0, effectDigests: [] }, 'lost'],
    ['an effect but no delivered row', { record: { ...delivered, state: 'processing' } }, 'lost'],
    [
      'two effects under two keys',
      { effects: 2, effectDigests: [A, A], dedupeKeys: ['k1', 'k2'] },
      'duplicated',
    ],
    ['a reused id the ledger refused', { enqueuedDigests: [A, B], refusedDigests: [B] }, 'conflict-refused'],
    ['a reused id that took effect', { effectDigests: [B] }, 'conflict-accepted'],
    [
      'a changed digest the ledger answered',
      { enqueuedDigests: [A, B], acceptedConflicts: 1 },
      'conflict-accepted',
    ],
    ['a reused id never refused', { enqueuedDigests: [A, B] }, 'conflict-unsettled'],
    [
      'a refused id still queued',
      { enqueuedDigests: [A, B], refusedDigests: [B], leftoverDigests: [B] },
      'conflict-unsettled',
    ],
    ['a lease granted twice', { overlappingClaims: 1 }, 'double-claimed'],
  ])('%s: %s', (_name, extra, verdict) => {
    expect(classify(history(extra))).toBe(verdict);
  });

  it('a leftover copy of the delivered payload is harmless', () => {
    expect(classify(history({ leftoverDigests: [A] }))).toBe('delivered-once');
  });
});

describe('observeLedger', () => {
  const claim = (owner: string, payloadSha256 = A) => ({
    eventId: 'evt',
    payloadSha256,
    owner,
    leaseSeconds: 10,
  });

  it('records refusals, and no overlap for a settled or lapsed lease taken over', async () => {
    const clock = new VirtualClock();
    const { ledger: inner, dispose } = await temporarySqliteLedger(clock);
    const { ledger, observations } = observeLedger(inner, clock);
    try {
      await ledger.claim(claim('w0'));
      expect((await ledger.claim(claim('w1'))).status).toBe('busy');
      await ledger.release({ eventId: 'evt', owner: 'w0', outcome: 'http 503' });
      await ledger.claim(claim('w1'));
      await clock.advance(11_000);
      await ledger.claim(claim('w2'));
      await expect(ledger.claim(claim('w3', B))).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
      expect(observations('evt')).toEqual({
        refusedDigests: [B],
        acceptedConflicts: 0,
        overlappingClaims: 0,
        claimedDigests: [A, B],
      });
    } finally {
      await dispose();
    }
  });
});
