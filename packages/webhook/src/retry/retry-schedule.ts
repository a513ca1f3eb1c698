import { type RetryPolicy, resolveRetryPolicy } from '@queueport/core';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

/**
 * The webhook worker's value of core's one RetryPolicy. First retry after about 5 s (as Svix
 * and Standard Webhooks), doubling to a 2 h cap, 15 attempts in all: because the growth is a
 * fixed doubling, a 5 s start needs ~12 steps to reach hours, so 15 attempts keep retrying for
 * about 8.8 h (jitter only shortens waits, by up to 20 %), long enough to ride out a working
 * day's outage, short enough that nothing retries forever. Retry-After is honoured from 1 s up
 * to 6 h.
 */
export const DEFAULT_RETRY_SCHEDULE: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 15,
  baseMs: 5 * SECOND,
  maxMs: 2 * HOUR,
  jitter: 0.2,
  retryAfterMinMs: 1 * SECOND,
  retryAfterMaxMs: 6 * HOUR,
});

/** A destination's partial policy over `defaults` (the worker's, else the webhook default), checked up front. */
export function resolveRetrySchedule(
  partial: Partial<RetryPolicy> | undefined,
  defaults: Readonly<RetryPolicy> = DEFAULT_RETRY_SCHEDULE,
): RetryPolicy {
  return resolveRetryPolicy(partial, defaults);
}
