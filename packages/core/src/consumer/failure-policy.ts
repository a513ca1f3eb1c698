import type { Capabilities } from '../capabilities';
import { isQueueError } from '../errors';
import { fitDelay } from '../queue/message-checks';
import { nextRetry, type RetryPolicy } from '../retry';

/** The consumer's redeliveries: 10 deliveries, 1 s doubling to 15 minutes, a Retry-After honoured up to 6 h. */
export const DEFAULT_REDELIVERY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 10,
  baseMs: 1_000,
  maxMs: 15 * 60_000,
  jitter: 0.2,
  retryAfterMinMs: 0,
  retryAfterMaxMs: 6 * 3_600_000,
});

export type FailureDecision =
  | { action: 'release'; delaySeconds: number }
  | { action: 'give-up'; reason: string };

/** Handler errors are retryable unless they say otherwise (`retryable: false`, like QueueError). */
export function isPermanentFailure(error: unknown): boolean {
  if (isQueueError(error)) return !error.retryable;
  return (
    typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false
  );
}

/**
 * What to do with a delivery whose handler failed: give up on permanent errors and when the
 * policy's attempts (deliveries) are spent, otherwise release it with the policy's delay for
 * this receive count, a Retry-After merged in by the one rule in `nextRetry`.
 */
export function decideOnFailure(
  error: unknown,
  receiveCount: number,
  policy: RetryPolicy,
  caps: Capabilities,
  random?: () => number,
): FailureDecision {
  const message = error instanceof Error ? error.message : String(error);
  if (isPermanentFailure(error)) return { action: 'give-up', reason: `permanent failure: ${message}` };
  const retryAfterSeconds = isQueueError(error) ? error.retryAfterSeconds : undefined;
  const next = nextRetry(
    policy,
    Math.max(1, receiveCount),
    retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
    random,
  );
  if (next.giveUp)
    return { action: 'give-up', reason: `gave up after ${receiveCount} deliveries: ${message}` };
  return { action: 'release', delaySeconds: fitDelay(next.delayMs / 1000, caps) };
}
