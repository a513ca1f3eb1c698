import type fc from 'fast-check';

/**
 * One fuzz target for the fuzz runner. A target file exports `targets: FuzzTarget[]`; the runner
 * runs each `property()` with fc.assert (or fc.check) for at least `minCases` cases.
 */
export interface FuzzTarget {
  /** Stable and unique across files, e.g. `webhook-sender/options`: reports and seeds refer to it. */
  name: string;
  /** The least number of cases (numRuns) a run must reach to count. */
  minCases: number;
  /**
   * A fresh property on every call; any fast-check property (sync or async, with or without
   * hooks) fits. Calling it also starts a new count for `counts()`.
   */
  property: () => fc.IRawProperty<unknown>;
  /**
   * The label one case's outcome falls under (`accepted`, `refused:ssrf`, `terminal:unsent`). A
   * target that has it labels each case it runs, and `counts()` returns how many cases got each
   * label, so the runner can show what the cases exercised besides how many passed.
   */
  classify?: (outcome: unknown) => string;
  /** Cases per `classify` label since the last `property()` call; shrinking runs included. */
  counts?: () => Readonly<Record<string, number>>;
}
