/**
 * The portable limits. Every provider's own limits are at least these, so an application that
 * stays inside them can move to any provider without finding a message it can no longer send.
 */

/** Largest message, in bytes of the encoded envelope plus its attributes (UTF-8, not characters). */
export const MAX_BODY_BYTES = 262_144;

/** Longest delay a publish or a release may ask for: 7 days. */
export const MAX_DELAY_SECONDS = 604_800;

/** The dedupe window of FIFO queues on SQS and Infrai: 5 minutes. */
export const FIFO_DEDUPE_WINDOW_SECONDS = 300;

/** Longest retention any supported provider offers for an unacknowledged message: 30 days. */
export const MAX_RETENTION_SECONDS = 30 * 86_400;

/** Longest event id, in UTF-8 bytes. Drivers that need a shorter key derive one from it. */
export const MAX_EVENT_ID_BYTES = 512;

/** Attributes are small transport metadata (trace ids, tenant), not a second payload. SQS allows 10. */
export const MAX_ATTRIBUTES = 10;
