import { QueueError } from '../errors';
import { type BackoffPolicy, backoffDelay } from './backoff';

/**
 * The one retry policy: for the Queue's provider calls, the consumer's redeliveries and the
 * webhook worker's attempts alike. Each has its own default value of it, never its own type.
 */
export interface RetryPolicy extends BackoffPolicy {
  /** Total tries, the first included. 1 disables retries. */
  maxAttempts: number;
  /** A server's Retry-After is honoured within [retryAfterMinMs, retryAfterMaxMs]. */
  retryAfterMinMs: number;
  retryAfterMaxMs: number;
}

/** Fills a partial policy from `defaults` and refuses nonsense up front, naming every problem. */
export function resolveRetryPolicy(
  partial: Partial<RetryPolicy> | undefined,
  defaults: Readonly<RetryPolicy>,
): RetryPolicy {
  const policy: RetryPolicy = { ...defaults };
  for (const [key, value] of Object.entries(partial ?? {}) as [keyof RetryPolicy, number | undefined][]) {
    if (value !== undefined) policy[key] = value;
  }
  const problems: string[] = [];
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    problems.push('maxAttempts must be an integer ≥ 1');
  for (const key of ['baseMs', 'maxMs', 'retryAfterMinMs', 'retryAfterMaxMs'] as const) {
    if (!Number.isFinite(policy[key]) || policy[key] < 0) problems.push(`${key} must be a finite number ≥ 0`);
  }
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) problems.push('jitter must be between 0 and 1');
  if (policy.maxMs < policy.baseMs) problems.push('maxMs must be ≥ baseMs');
  if (policy.retryAfterMaxMs < policy.retryAfterMinMs)
    problems.push('retryAfterMaxMs must be ≥ retryAfterMinMs');
  if (problems.length > 0) {
    throw new QueueError('INVALID_ARGUMENT', `invalid retry policy: ${problems.join('; ')}`, {
      details: { field: 'retry', problems },
    });
  }
  return policy;
}

/**
 * The wait after failed attempt `attempt` (1 = the first try): the policy's backoff, or the
 * server's Retry-After (clamped to the policy's bounds) when that is longer. A server asking us
 * to slow down always wins over our own, possibly shorter, schedule.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const backoff = backoffDelay(attempt, policy, random);
  if (retryAfterMs === undefined || Number.isNaN(retryAfterMs)) return backoff;
  const clamped = Math.min(policy.retryAfterMaxMs, Math.max(policy.retryAfterMinMs, retryAfterMs));
  return Math.max(backoff, clamped);
}

export type NextRetry = { giveUp: true } | { giveUp: false; delayMs: number; nextAttempt: number };

/**
 * The one give-up rule: after failed attempt `attempt`, either give up (the policy's attempts
 * are spent) or wait `delayMs` before attempt `nextAttempt`.
 */
export function nextRetry(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random?: () => number,
): NextRetry {
  if (attempt >= policy.maxAttempts) return { giveUp: true };
  return {
    giveUp: false,
    delayMs: retryDelayMs(attempt, policy, retryAfterMs, random),
    nextAttempt: attempt + 1,
  };
}
