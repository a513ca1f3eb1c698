export {
  type AdapterDefinition,
  type AdapterEndpoint,
  type AdapterUrls,
  type CreateQueueRequest,
  type DeadLetterRecord,
  defineAdapter,
  type OpenContext,
  type PreflightCheck,
  type PreflightContext,
  type QueueAdmin,
  type QueueStats,
} from './adapter-definition';
export { AdapterRegistry, type OpenQueueOptions, openQueue } from './adapter-registry';
export { eventIdOfBody } from './event-id-of-body';
export { checkAdminSettings, guardedAdmin } from './guarded-admin';
export { importWithPeers, installLine, isModuleNotFound, missingPeerError } from './peer-import';
export { type QueueLocatorRules, queueLocator, requireQueueName } from './queue-locator';
export { redactUrl } from './redact-url';
export { type UnknownOptionRules, unknownOptionError } from './unknown-option';
