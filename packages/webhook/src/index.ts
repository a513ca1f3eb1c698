export * from './destinations';
export {
  DEFAULT_IDEMPOTENCY_KEY_STYLE,
  formatIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  type IdempotencyKeyStyle,
  parseIdempotencyKey,
} from './idempotency-key';
export * from './reconcile';
export * from './retry';
export * from './sender';
export * from './signing';
export * from './ssrf';
export { USER_AGENT, WEBHOOK_SDK_VERSION } from './version';
export * from './worker';
