export { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';
export { type NextRetry, nextRetry, type RetryPolicy, resolveRetryPolicy, retryDelayMs } from './policy';
export { MAX_RETRY_AFTER_MS, parseRetryAfterMs, type RetryAfterOptions } from './retry-after';
export { DEFAULT_RETRY, type RetryContext, withRetry } from './with-retry';
