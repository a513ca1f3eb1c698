/**
 * @queueport/core for applications: the portable Queue, the envelope, errors, limits, and
 * opening a queue by URL. Driver authors import `@queueport/core/driver`; tests the virtual
 * clock from `@queueport/core/testing`.
 */
export {
  type AdapterDefinition,
  AdapterRegistry,
  type CreateQueueRequest,
  type DeadLetterRecord,
  type OpenQueueOptions,
  openQueue,
  type QueueAdmin,
  type QueueStats,
  redactUrl,
} from './adapters';
export type {
  BatchLimits,
  Capabilities,
  DeadLetterCapability,
  DedupeCapability,
  DelayCapability,
  OrderingCapability,
  PortableLimits,
  StaleReceiptBehavior,
} from './capabilities';
export { type Clock, systemClock } from './clock';
export * from './consumer';
export * from './envelope';
export {
  ERROR_CODES,
  type ErrorCode,
  isQueueError,
  QueueError,
  type QueueErrorOptions,
  redactSecrets,
} from './errors';
export * from './limits';
export * from './queue';
export {
  type BackoffPolicy,
  DEFAULT_RETRY,
  type NextRetry,
  nextRetry,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
} from './retry';
