/**
 * The clocks a run reads. Not an option: a caller sets the budget in milliseconds and when it
 * began; the tests of this folder pass their own clocks to the functions that take this.
 */
export interface ReconcileClocks {
  /** Milliseconds on a monotonic clock, for the budget. */
  now: () => number;
  /** Epoch ms, to compare with the ledger's lease and retry times. */
  wallClock: () => number;
}

export const systemReconcileClocks: ReconcileClocks = {
  now: () => performance.now(),
  wallClock: () => Date.now(),
};
