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
  assessSecret,
  ERROR_CODES,
  type ErrorCode,
  isQueueError,
  QueueError,
  type QueueErrorOptions,
  redactSecrets,
  registerSecretPatterns,
  type SecretAssessment,
} from './errors';
export {
  type EmitterOptions,
  type ErrorEventBase,
  type EventListener,
  type EventLogger,
  type EventSource,
  type EventsShape,
  eventNames,
  type ListenerErrorEvent,
  QUEUE_EVENT_NAMES,
  type QueueEvents,
  TypedEmitter,
  type Unsubscribe,
} from './events';
export * from './limits';
export {
  checkReference,
  contentAddress,
  DEFAULT_MAX_PAYLOAD_BYTES,
  FilePayloadStore,
  type FilePayloadStoreOptions,
  type PayloadProblem,
  type PayloadReference,
  type PayloadStore,
  type PayloadStoreOptions,
  type PayloadStoreStats,
  type PruneOptions,
  payloadAltered,
  payloadMissing,
  payloadTooLarge,
  RESERVED_REF_SCHEME,
  readStoredPayloadUri,
  storedPayloadUri,
  verifyContent,
} from './payload-store';
export * from './payloads';
export * from './queue';
export {
  type BackoffPolicy,
  DEFAULT_RETRY,
  MAX_RETRY_AFTER_MS,
  type NextRetry,
  nextRetry,
  parseRetryAfterMs,
  type RetryAfterOptions,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
} from './retry';
export {
  type ProcessScope,
  type PublishedMessageFacts,
  type PublishedOutcome,
  type PublishScope,
  type QueueTelemetry,
  type ReceivedFacts,
  type ReceiveScope,
  type Telemetry,
  type TelemetryQueue,
  TRACE_CONTEXT_ATTRIBUTE,
} from './telemetry';
