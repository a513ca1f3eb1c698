import type { Capabilities } from '../capabilities';
import { isQueueError } from '../errors';
import { fitDelay } from '../queue/message-checks';
import { type BackoffPolicy, backoffDelay } from '../retry';

export const DEFAULT_REDELIVERY_BACKOFF: Readonly<BackoffPolicy> = {
  baseMs: 1_000,
  maxMs: 15 * 60_000,
  jitter: 0.2,
};

export type FailureDecision =
  | { action: 'release'; delaySeconds: number }
  | { action: 'dead-letter'; reason: string };

/** Handler errors are retryable unless they say otherwise (`retryable: false`, like QueueError). */
export function isPermanentFailure(error: unknown): boolean {
  if (isQueueError(error)) return !error.retryable;
  return (
    typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false
  );
}

/**
 * What to do with a delivery whose handler failed: give up on permanent errors and on the last
 * allowed delivery, otherwise release it with a backoff that grows with the receive count.
 */
export function decideOnFailure(
  error: unknown,
  receiveCount: number,
  maxDeliveries: number,
  backoff: BackoffPolicy,
  caps: Capabilities,
  random: () => number = Math.random,
): FailureDecision {
  const message = error instanceof Error ? error.message : String(error);
  if (isPermanentFailure(error)) return { action: 'dead-letter', reason: `permanent failure: ${message}` };
  if (receiveCount >= maxDeliveries) {
    return { action: 'dead-letter', reason: `gave up after ${receiveCount} deliveries: ${message}` };
  }
  const retryAfter = isQueueError(error) ? (error.retryAfterSeconds ?? 0) : 0;
  const backoffSeconds = backoffDelay(Math.max(1, receiveCount), backoff, random) / 1000;
  return { action: 'release', delaySeconds: fitDelay(Math.max(backoffSeconds, retryAfter), caps) };
}
