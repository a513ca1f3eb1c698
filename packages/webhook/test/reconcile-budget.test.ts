import { afterEach, describe, expect, it } from 'vitest';
import { handleReconcileMessageOn } from '../src/reconcile/handle-reconcile-message';
import type { ReconcileClocks } from '../src/reconcile/reconcile-clocks';
import { RECONCILE_REPUBLISH_TYPE } from '../src/reconcile/reconcile-work';
import { reconcileOn } from '../src/reconcile/run-reconcile';
import { type ReconcileWorld, startReconcileWorld } from './helpers/reconcile-world';

let world: ReconcileWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A budget clock that moves only when told to, and the real wall clock (the ledger's rows are real). */
function manualClocks(): ReconcileClocks & { at: number } {
  const clocks = { at: 0, now: () => clocks.at, wallClock: () => Date.now() };
  return clocks;
}

describe('the reconcile budget, on a clock the test moves', () => {
  it('a budget spent before the first unit republishes nothing and leaves every stuck event pending', async () => {
    world = await startReconcileWorld();
    const clocks = manualClocks();
    const result = await reconcileOn(clocks, {
      ledger: world.ledger,
      queue: world.queue,
      // The survey reads the rows; then the clock jumps to the end of the budget.
      loadPayload: async (eventId) => {
        throw new Error(`no load expected, got ${eventId}`);
      },
      olderThanSeconds: 3_600,
      batch: 2,
      budgetMs: 1_000,
      startedAt: 0,
      progress: () => {
        clocks.at = 1_000;
      },
    });
    expect(result.eligible).toHaveLength(world.seeded.stale.length);
    expect(result.republished).toEqual([]);
    expect(result.failed).toEqual([]);
    expect(result.pending).toEqual(result.eligible);
    expect(result.durationMs).toBe(1_000);
    expect(await world.depth('queue')).toBe(0);
  });

  it('a scan begun past its share of the budget reads nothing: the scan is partial, not "none stuck"', async () => {
    world = await startReconcileWorld();
    const clocks = manualClocks();
    clocks.at = 400; // past the survey's 30 % of 1000 ms
    const result = await reconcileOn(clocks, {
      ledger: world.ledger,
      queue: world.queue,
      loadPayload: world.store.loader(),
      olderThanSeconds: 3_600,
      batch: 2,
      budgetMs: 1_000,
      startedAt: 0,
    });
    expect(result.scanComplete).toBe(false);
    expect(result.eligible).toEqual([]);
    expect(result.ambiguousComplete).toBe(false);
  });

  it('a worker handed a unit after its budget is spent leaves the unit pending', async () => {
    world = await startReconcileWorld();
    const clocks = manualClocks();
    const [first, second] = world.seeded.stale as [string, string];
    let reads = 0;
    const result = await handleReconcileMessageOn(
      { ...clocks, now: () => (reads++ === 0 ? 0 : 60_000) },
      {
        type: RECONCILE_REPUBLISH_TYPE,
        payload: { v: 1, kind: 'republish', run: 'r', unit: 1, eventIds: [first, second] },
      },
      { ledger: world.ledger, queue: world.queue, workQueue: world.work, loadPayload: world.store.loader() },
    );
    expect(result.eligible).toEqual([first, second]);
    expect(result.republished).toEqual([]);
    expect(result.pending).toEqual([first, second]);
  });
});
