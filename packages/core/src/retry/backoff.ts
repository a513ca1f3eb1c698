export interface BackoffPolicy {
  /** Delay before the first retry, in milliseconds. */
  baseMs: number;
  /** Cap on any single delay. */
  maxMs: number;
  /** Fraction of each delay that is randomised, 0..1. 1 is "full jitter". */
  jitter: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = { baseMs: 100, maxMs: 10_000, jitter: 1 };

/**
 * Capped exponential backoff with jitter: attempt 1 waits about baseMs, each later attempt twice
 * the last, never more than maxMs. Jitter spreads retries of many workers apart.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 52));
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  // The sum can land one floating-point step above the ceiling.
  return Math.min(ceiling, ceiling * (1 - jitter) + ceiling * jitter * random());
}
