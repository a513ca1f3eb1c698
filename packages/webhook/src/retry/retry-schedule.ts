import { type BackoffPolicy, backoffDelay, QueueError } from '@queueport/core';
import type { DeliveryOutcome } from '../sender-types';
import { clampRetryAfter } from './retry-after';

export interface RetrySchedule extends BackoffPolicy {
  /** Total tries, the first included. 1 disables retries. */
  maxAttempts: number;
  /** A receiver's Retry-After is honoured within [retryAfterMinMs, retryAfterMaxMs]. */
  retryAfterMinMs: number;
  retryAfterMaxMs: number;
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;

/**
 * First retry after about 5 s (as Svix and Standard Webhooks), doubling with core's
 * `backoffDelay`, capped at 2 h, 15 attempts in all. Because the growth is a fixed doubling, a
 * 5 s start needs ~12 steps to reach hours; 15 attempts keep retrying for about 10.8 h (jitter
 * only shortens waits, by up to 20 %), long enough to ride out a working day's outage, short
 * enough that nothing retries forever. Retry-After is honoured from 1 s up to 6 h.
 */
export const DEFAULT_RETRY_SCHEDULE: Readonly<RetrySchedule> = Object.freeze({
  maxAttempts: 15,
  baseMs: 5 * SECOND,
  maxMs: 2 * HOUR,
  jitter: 0.2,
  retryAfterMinMs: 1 * SECOND,
  retryAfterMaxMs: 6 * HOUR,
});

/** Fills a destination's partial policy from the defaults and refuses nonsense up front. */
export function resolveRetrySchedule(partial: Partial<RetrySchedule> = {}): RetrySchedule {
  const policy: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE };
  for (const [key, value] of Object.entries(partial) as [keyof RetrySchedule, number | undefined][]) {
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
 * The wait after failed attempt `attempt` (1 = the first try): core's backoff, or the
 * receiver's Retry-After (clamped) when that is longer. A server asking us to slow down
 * always wins over our own, possibly shorter, schedule.
 */
export function retryDelay(
  attempt: number,
  policy: RetrySchedule,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const backoff = backoffDelay(attempt, policy, random);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(
    backoff,
    clampRetryAfter(retryAfterMs, { minMs: policy.retryAfterMinMs, maxMs: policy.retryAfterMaxMs }),
  );
}

export type RetryDecision =
  | { retry: true; delayMs: number; nextAttempt: number }
  | { retry: false; reason: 'delivered' | 'terminal' | 'disable' | 'attempts-exhausted' };

/**
 * What to do after attempt `attempt` ended with `outcome`: only a `retry` outcome is retried,
 * and never past maxAttempts, so no delivery stays in endless retry.
 */
export function decideRetry(
  outcome: Pick<DeliveryOutcome, 'kind'> & { retryAfterMs?: number },
  attempt: number,
  policy: RetrySchedule,
  random?: () => number,
): RetryDecision {
  if (outcome.kind !== 'retry') return { retry: false, reason: outcome.kind };
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts-exhausted' };
  return {
    retry: true,
    delayMs: retryDelay(attempt, policy, outcome.retryAfterMs, random),
    nextAttempt: attempt + 1,
  };
}

export type NextRetry = { giveUp: true } | { giveUp: false; delayMs: number; nextAttempt: number };

/**
 * The worker's view: after failed attempt `attempt` under a (possibly partial, per-destination)
 * schedule, either give up or wait `delayMs`. Same rules as `decideRetry`.
 */
export function nextRetry(
  schedule: Partial<RetrySchedule> | undefined,
  attempt: number,
  retryAfterMs?: number,
  random?: () => number,
): NextRetry {
  const decision = decideRetry(
    { kind: 'retry', retryAfterMs },
    attempt,
    resolveRetrySchedule(schedule),
    random,
  );
  return decision.retry
    ? { giveUp: false, delayMs: decision.delayMs, nextAttempt: decision.nextAttempt }
    : { giveUp: true };
}
