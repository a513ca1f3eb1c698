export * from './discovery';
export { createInfraiAdapter, type InfraiAdapterOptions, infraiAdapter } from './infrai-adapter';
export { IDEMPOTENCY_KEY_RULES, InfraiDriver, idempotencyKey } from './infrai-driver';
export { DEFAULT_BASE_URL, DEFAULT_DEDUPE_WINDOW_SECONDS, type InfraiDriverOptions } from './infrai-options';
export { DEFAULT_KEY_ENV, type ParsedInfraiUrl, parseInfraiUrl } from './infrai-url';
export { classifyInfraiFailure } from './wire/classify-response';
export type { InfraiCall } from './wire/infrai-http';
