export {
  type AdapterDefinition,
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
export { redactUrl } from './redact-url';
export { type UnknownOptionRules, unknownOptionError } from './unknown-option';
