/**
 * The queue semantics Infrai's docs leave open, decided once for the simulator. Ranges the
 * snapshot's schemas carry (delay, batch size, retention maximum) are enforced by validating
 * against them, so a drifted snapshot moves the simulator with it; these are the rest.
 */
export const QUEUE_DEFAULTS = {
  type: 'standard',
  maxRetries: 5,
  messageRetentionDays: 14,
  visibilityTimeoutSeconds: 30,
  enablePriority: false,
  priority: 0,
} as const;

export const CONSUME_DEFAULT_MAX_MESSAGES = 1;
export const DLQ_LIST_DEFAULT_MAX_MESSAGES = 10;
export const REDRIVE_DEFAULT_MAX_MESSAGES = 10;

/** A payload's canonical JSON, in UTF-8 bytes (256 KiB). */
export const MAX_PAYLOAD_BYTES = 262_144;

/** Room for a full publish_batch (10 payloads at the limit) plus its keys, and no more. */
export const MAX_BODY_BYTES = 4 * 1_048_576;

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const DAY_MS = 24 * 60 * 60 * 1000;

export const DEAD_LETTER_REASONS = {
  redelivery: 'max_retries exceeded',
  nack: 'nacked past max_retries',
} as const;
