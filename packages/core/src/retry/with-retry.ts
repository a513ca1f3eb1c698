import { type Clock, systemClock } from '../clock';
import type { QueueError } from '../errors';
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';

export interface RetryPolicy extends BackoffPolicy {
  /** Total tries, the first included. 1 disables retries. */
  maxAttempts: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = { ...DEFAULT_BACKOFF, maxAttempts: 4 };

export interface RetryContext {
  /** Waits between attempts; real time by default, since provider outages happen in real time. */
  clock?: Clock;
  signal?: AbortSignal;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; error: QueueError }) => void;
}

/**
 * Runs `operation` until it succeeds, fails with a non-retryable error, or runs out of attempts.
 * A RATE_LIMITED error's retry-after wins over the computed delay when it is longer.
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
      if (!error.retryable || attempt >= policy.maxAttempts || context.signal?.aborted) throw error;
      const computed = backoffDelay(attempt, policy, context.random);
      const delayMs = Math.max(computed, (error.retryAfterSeconds ?? 0) * 1000);
      context.onRetry?.({ attempt, delayMs, error });
      await clock.sleep(delayMs, context.signal);
    }
  }
}
