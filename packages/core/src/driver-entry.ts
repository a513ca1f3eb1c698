/**
 * @queueport/core/driver, for driver authors: the contract a provider package implements, its
 * adapter definition, and the helpers every driver shares (errors, provider-safe keys).
 */
export {
  type AdapterDefinition,
  type AdapterEndpoint,
  type AdapterUrls,
  type CreateQueueRequest,
  checkAdminSettings,
  type DeadLetterRecord,
  defineAdapter,
  eventIdOfBody,
  guardedAdmin,
  importWithPeers,
  installLine,
  isModuleNotFound,
  missingPeerError,
  type OpenContext,
  type PreflightCheck,
  type PreflightContext,
  type QueueAdmin,
  type QueueLocatorRules,
  type QueueStats,
  queueLocator,
  requireQueueName,
  type UnknownOptionRules,
  unknownOptionError,
} from './adapters';
export {
  decodeQueueName,
  defineUrlGrammar,
  ENVIRONMENT_VARIABLE_NAME_RULE,
  type EnvironmentVariableSource,
  encodeQueueName,
  isEnvironmentVariableName,
  type NameRule,
  type OptionKind,
  type OptionValues,
  type ReadUrl,
  readEnv,
  type TextRule,
  type UrlGrammar,
  type UrlGrammarSpec,
  urlOption,
  type WholeNumberBounds,
} from './adapters/url';
export { Coalescer, type CoalescerSettings, type EntryOutcome } from './batching';
export * from './capabilities';
export { type Clock, systemClock } from './clock';
export { DEADLINE_PASSED, DeadlineSlot, DeadlineWheel, LinkedSignal } from './deadlines';
export { BRIDGE_ATTRIBUTE, BRIDGE_RESERVED_BYTES } from './delay-bridge';
export * from './driver';
export {
  assessSecret,
  ERROR_CODES,
  type ErrorClassifier,
  type ErrorCode,
  isQueueError,
  type NormalizeErrorOptions,
  normalizeError,
  QueueError,
  type QueueErrorOptions,
  RETRYABLE_BY_DEFAULT,
  redactSecrets,
  registeredSecretPatterns,
  registerSecretPatterns,
  type SecretAssessment,
} from './errors';
export * from './limits';
export { checkDriverOptions, type DriverOptionsSchema, wholeNumberSchemas } from './options';
export { ABORTED, ABORTED_RECEIVE_TURNS, AbandonedTakes, untilAborted } from './receive-abort';
export { MAX_RETRY_AFTER_MS, parseRetryAfterMs, type RetryAfterOptions } from './retry';
export { type CreateAjvOptions, createAjv, type SchemaOrigin } from './validation';
