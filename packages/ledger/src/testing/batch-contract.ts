import { QueueError } from '@queueport/core';
import type { VirtualClock } from '@queueport/core/testing';
import { expect, it } from 'vitest';
import type { BatchOutcome, ClaimRequest, Ledger, SettleEntry } from '../ledger';
import { MAX_BATCH_ENTRIES } from '../ledger';
import { DIGEST, LEASE_S, OTHER_DIGEST } from './contract-fixtures';
import type { LedgerHarness, OpenLedger } from './ledger-contract';

type Op = { kind: 'claim'; request: ClaimRequest } | { kind: 'settle'; entry: SettleEntry };
/** One step of a generated history: a batch of claims or of settles, then the clock moves. */
type Step = { ops: Op[]; advanceMs: number };

/** Small and seeded, so a failing history can be replayed from the seed in the message. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Few ids and owners, so histories collide: duplicates in a batch, busy leases, lost leases, conflicts. */
function history(seed: number, prefix: string): Step[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const ids = ['a', 'b', 'c'].map((id) => `${prefix}${id}`);
  const owners = ['x', 'y'];
  const steps: Step[] = [];
  for (let step = 0; step < 8; step++) {
    const claims = next() < 0.5;
    const ops: Op[] = [];
    for (let n = 1 + Math.floor(next() * 4); n > 0; n--) {
      const eventId = pick(ids);
      const owner = pick(owners);
      if (claims) {
        const payloadSha256 = next() < 0.15 ? OTHER_DIGEST : DIGEST;
        ops.push({ kind: 'claim', request: { eventId, owner, payloadSha256, leaseSeconds: LEASE_S } });
      } else {
        const kind = pick(['complete', 'fail', 'release'] as const);
        const ambiguous = next() < 0.3;
        ops.push({ kind: 'settle', entry: { kind, eventId, owner, outcome: `o${step}`, ambiguous } });
      }
    }
    steps.push({ ops, advanceMs: pick([0, 1, LEASE_S * 1000 + 1]) });
  }
  return steps;
}

/** What an outcome says, without the error's stack: the value, or the error's code. */
function shown(outcome: BatchOutcome<unknown>): unknown {
  return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, code: outcome.error.code };
}

async function single(ledger: Ledger, op: Op): Promise<BatchOutcome<unknown>> {
  try {
    if (op.kind === 'claim') return { ok: true, value: await ledger.claim(op.request) };
    const { kind, ...request } = op.entry;
    return { ok: true, value: await ledger[kind](request) };
  } catch (error) {
    if (error instanceof QueueError) return { ok: false, error };
    throw error;
  }
}

async function batched(ledger: Ledger, ops: Op[]): Promise<BatchOutcome<unknown>[]> {
  if (ops[0]?.kind === 'claim')
    return ledger.claimMany(ops.map((op) => (op as { request: ClaimRequest }).request));
  return ledger.settleMany(ops.map((op) => (op as { entry: SettleEntry }).entry));
}

/**
 * claimMany / settleMany as every store must have them: each entry decided as its single call
 * would be, in order, one outcome each. Registered inside the ledger contract's describe.
 */
export function describeBatchContract(
  open: OpenLedger,
  current: () => { clock: VirtualClock; harness: LedgerHarness; ledger: Ledger },
): void {
  it('batches decide every entry as single calls in the same order would: the same outcomes, the same rows', async () => {
    const { clock, ledger: batches } = current();
    // The reference: one call, one commit, no grouping. It shares the clock, so both see the same times.
    const other = await open(clock, { groupCommit: false });
    const ledger = other.ledger;
    try {
      for (let seed = 1; seed <= 12; seed++) {
        const steps = history(seed, `s${seed}-`);
        for (const step of steps) {
          const singles: unknown[] = [];
          for (const op of step.ops) singles.push(shown(await single(ledger, op)));
          const batch = (await batched(batches, step.ops)).map(shown);
          expect(batch, `seed ${seed}`).toEqual(singles);
          await clock.advance(step.advanceMs);
        }
        for (const id of ['a', 'b', 'c'].map((id) => `s${seed}-${id}`)) {
          expect(await batches.get(id), `seed ${seed}, ${id}`).toEqual(await ledger.get(id));
        }
      }
    } finally {
      await other.cleanup();
    }
  });

  it('an entry that is malformed, conflicting or without its lease fails alone; the others are written', async () => {
    const { ledger } = current();
    await ledger.claim({ eventId: 'held', payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S });
    const claims = await ledger.claimMany([
      { eventId: 'fresh', payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S },
      { eventId: 'bad', payloadSha256: DIGEST, owner: 'x', leaseSeconds: -1 },
      { eventId: 'held', payloadSha256: OTHER_DIGEST, owner: 'y', leaseSeconds: LEASE_S },
      { eventId: 'held', payloadSha256: DIGEST, owner: 'y', leaseSeconds: LEASE_S },
    ]);
    expect(claims.map(shown)).toMatchObject([
      { ok: true, value: { status: 'claimed', attempt: 1 } },
      { ok: false, code: 'INVALID_ARGUMENT' },
      { ok: false, code: 'IDEMPOTENCY_CONFLICT' },
      { ok: true, value: { status: 'busy' } },
    ]);
    expect(await ledger.get('bad')).toBeUndefined();
    const settles = await ledger.settleMany([
      { kind: 'complete', eventId: 'fresh', owner: 'x', outcome: 'http 200' },
      { kind: 'complete', eventId: 'held', owner: 'y', outcome: 'http 200' },
      { kind: 'release', eventId: 'held', owner: 'x', outcome: 'http 503', retryAt: -5 },
      { kind: 'release', eventId: 'held', owner: 'x', outcome: 'http 503' },
    ]);
    expect(settles.map(shown)).toMatchObject([
      { ok: true, value: { state: 'delivered' } },
      { ok: false, code: 'LEASE_LOST' },
      { ok: false, code: 'INVALID_ARGUMENT' },
      { ok: true, value: { state: 'processing', leaseOwner: null, lastOutcome: 'http 503' } },
    ]);
  });

  it('concurrent single claims of one id, grouped into batches: exactly one wins', async () => {
    const { ledger } = current();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        ledger.claim({ eventId: 'contended', payloadSha256: DIGEST, owner: `o${n}`, leaseSeconds: LEASE_S }),
      ),
    );
    expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'busy')).toHaveLength(11);
  });

  it('per-event claims and settles made in one turn each resolve as they would alone', async () => {
    const { clock, ledger: grouped } = current();
    const other = await open(clock, { groupCommit: false });
    try {
      const held = ['m1', 'm2', 'm3', 'm4'];
      for (const ledger of [grouped, other.ledger]) {
        for (const eventId of held) {
          await ledger.claim({ eventId, payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S });
        }
      }
      // No call depends on another of the same turn (a settle follows its own claim's answer in
      // any real caller), so the order they are written in cannot change an outcome.
      const turn = (ledger: Ledger) => [
        () => ledger.complete({ eventId: 'm1', owner: 'x', outcome: 'http 200' }),
        () => ledger.claim({ eventId: 'n1', payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S }),
        () => ledger.fail({ eventId: 'm2', owner: 'x', outcome: 'http 410' }),
        () => ledger.claim({ eventId: 'm4', payloadSha256: DIGEST, owner: 'y', leaseSeconds: LEASE_S }),
        () => ledger.release({ eventId: 'm3', owner: 'y', outcome: 'http 503' }),
        () => ledger.claim({ eventId: 'n2', payloadSha256: OTHER_DIGEST, owner: 'y', leaseSeconds: LEASE_S }),
        () => ledger.release({ eventId: 'm3', owner: 'x', outcome: 'http 503', ambiguous: true }),
      ];
      const settled = (calls: Array<() => Promise<unknown>>) =>
        calls.map((call) =>
          call().then(
            (value) => ({ ok: true, value }),
            (error: QueueError) => ({ ok: false, code: error.code }),
          ),
        );
      const together = await Promise.all(settled(turn(grouped)));
      const alone: unknown[] = [];
      for (const call of turn(other.ledger)) alone.push(await settled([call])[0]);
      expect(together).toEqual(alone);
      for (const id of [...held, 'n1', 'n2'])
        expect(await grouped.get(id), id).toEqual(await other.ledger.get(id));
    } finally {
      await other.cleanup();
    }
  });

  it('what a batch or a grouped call resolved is committed: another connection reads it', async () => {
    const { ledger, harness } = current();
    const many = await ledger.claimMany(
      ['d1', 'd2'].map((eventId) => ({ eventId, payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S })),
    );
    const grouped = await Promise.all(
      ['d3', 'd4', 'd5'].map((eventId) =>
        ledger.claim({ eventId, payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S }),
      ),
    );
    await Promise.all(
      ['d1', 'd3'].map((eventId) => ledger.complete({ eventId, owner: 'x', outcome: 'http 200' })),
    );
    expect([...many.map((o) => o.ok), ...grouped.map((r) => r.status)]).toEqual([
      true,
      true,
      'claimed',
      'claimed',
      'claimed',
    ]);
    const reader = await harness.reopen();
    try {
      for (const id of ['d2', 'd4', 'd5']) expect((await reader.get(id))?.state).toBe('processing');
      for (const id of ['d1', 'd3']) expect((await reader.get(id))?.state).toBe('delivered');
    } finally {
      await reader.close();
    }
  });

  it('close writes the calls it accepted before closing; later calls get CLOSED', async () => {
    const { ledger, harness } = current();
    const pending = ['c1', 'c2', 'c3'].map((eventId) =>
      ledger.claim({ eventId, payloadSha256: DIGEST, owner: 'x', leaseSeconds: LEASE_S }),
    );
    await ledger.close();
    expect((await Promise.all(pending)).map((result) => result.status)).toEqual([
      'claimed',
      'claimed',
      'claimed',
    ]);
    await expect(ledger.claimMany([])).rejects.toMatchObject({ code: 'CLOSED' });
    const reader = await harness.reopen();
    try {
      expect((await reader.get('c3'))?.state).toBe('processing');
    } finally {
      await reader.close();
    }
  });

  it('refuses a batch that is not an array or holds more than MAX_BATCH_ENTRIES; an empty one is answered empty', async () => {
    const { ledger } = current();
    await expect(ledger.claimMany({} as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const tooMany = Array.from({ length: MAX_BATCH_ENTRIES + 1 }, (_, n) => ({
      kind: 'complete' as const,
      eventId: `e${n}`,
      owner: 'x',
      outcome: 'x',
    }));
    await expect(ledger.settleMany(tooMany)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await ledger.claimMany([])).toEqual([]);
    expect(
      await ledger.settleMany([{ kind: 'nope', eventId: 'e', owner: 'x', outcome: 'x' } as never]),
    ).toMatchObject([{ ok: false, error: { code: 'INVALID_ARGUMENT' } }]);
  });
}
