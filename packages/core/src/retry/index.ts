export { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';
export { DEFAULT_RETRY, type RetryContext, type RetryPolicy, withRetry } from './with-retry';
