import { type Clock, systemClock } from '../clock';
import type { QueueError } from '../errors';
import { DEFAULT_BACKOFF } from './backoff';
import { nextRetry, type RetryPolicy } from './policy';

/** The Queue's provider calls: four tries within about a second, a Retry-After honoured up to a minute. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  ...DEFAULT_BACKOFF,
  maxAttempts: 4,
  retryAfterMinMs: 0,
  retryAfterMaxMs: 60_000,
});

export interface RetryContext {
  /** Waits between attempts; real time by default, since provider outages happen in real time. */
  clock?: Clock;
  signal?: AbortSignal;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; error: QueueError }) => void;
}

/**
 * Runs `operation` until it succeeds, fails with a non-retryable error, or the policy gives up.
 * A RATE_LIMITED error's retry-after is merged by `nextRetry`, like every other Retry-After.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  normalize: (error: unknown) => QueueError,
  policy: RetryPolicy,
  context: RetryContext = {},
): Promise<T> {
  const clock = context.clock ?? systemClock;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (raw) {
      const error = normalize(raw);
      if (!error.retryable || context.signal?.aborted) throw error;
      const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
      const next = nextRetry(policy, attempt, retryAfterMs, context.random);
      if (next.giveUp) throw error;
      context.onRetry?.({ attempt, delayMs: next.delayMs, error });
      await clock.sleep(next.delayMs, context.signal);
    }
  }
}
