/** Part of the budget kept back for the last publish and the report, whatever the budget. */
const RESERVE_FRACTION = 0.05;
const RESERVE_MIN_MS = 20;
const RESERVE_MAX_MS = 5_000;

/** A run's time budget, read before every step of work. */
export interface Budget {
  now: () => number;
  started: number;
  deadline: number;
  /** No new work after this: the reserve is kept for the last publish and the report. */
  stopAt: number;
  /** A point `share` of the way through the budget. */
  at(share: number): number;
}

export function budgetOf(budgetMs: number, now: () => number, startedAt: number = now()): Budget {
  const reserve = Math.min(Math.max(budgetMs * RESERVE_FRACTION, RESERVE_MIN_MS), RESERVE_MAX_MS);
  const deadline = startedAt + budgetMs;
  return {
    now,
    started: startedAt,
    deadline,
    stopAt: deadline - reserve,
    at: (share) => startedAt + budgetMs * share,
  };
}
