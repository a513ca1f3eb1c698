export { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';
export { type NextRetry, nextRetry, type RetryPolicy, resolveRetryPolicy, retryDelayMs } from './policy';
export { DEFAULT_RETRY, type RetryContext, withRetry } from './with-retry';
