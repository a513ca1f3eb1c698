export { clampRetryAfter, parseRetryAfter, type RetryAfterClamp } from './retry-after';
export {
  DEFAULT_RETRY_SCHEDULE,
  decideRetry,
  type NextRetry,
  nextRetry,
  type RetryDecision,
  type RetrySchedule,
  resolveRetrySchedule,
  retryDelay,
} from './retry-schedule';
