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

/** Longest retention every supported provider offers for an unacknowledged message: SQS's 14 days. */
export const MAX_RETENTION_SECONDS = 14 * 86_400;

/** Longest event id, in UTF-8 bytes. Drivers that need a shorter key derive one (`deriveProviderKey`). */
export const MAX_EVENT_ID_BYTES = 512;

/** Longest long poll the portable Queue asks for: SQS's 20 s. */
export const MAX_LONG_POLL_SECONDS = 20;

/**
 * Attributes a provider must carry per message: SQS allows 10. The application gets
 * `MAX_ATTRIBUTES`; the rest is kept for queueport's own (the delay bridge) and a driver's.
 */
export const PROVIDER_ATTRIBUTES = 10;
export const RESERVED_ATTRIBUTES = 2;
/** Attributes are small transport metadata (trace ids, tenant), not a second payload. */
export const MAX_ATTRIBUTES = PROVIDER_ATTRIBUTES - RESERVED_ATTRIBUTES;

/**
 * The most bytes queueport's own attributes (the delay bridge's, the trace context) add to a
 * message's attribute names and values. A driver whose provider bounds attributes declares its
 * `maxAttributeBytes` less this, so the Queue's additions always fit.
 */
export const RESERVED_ATTRIBUTE_BYTES = 256;

/** Attribute names with these prefixes belong to providers and to queueport itself. */
export const RESERVED_ATTRIBUTE_PREFIX = /^(aws\.|amazon\.|queueport\.)/i;

/**
 * Attribute names no message may carry: as keys of the plain object a delivery's attributes
 * become, they would reach (or replace) its prototype. The Queue refuses them on publish and on
 * receive alike, so a message it accepts is one it can hand out.
 */
export const FORBIDDEN_ATTRIBUTE_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * What an admin's `createQueue` redrives after when the request names no `redriveAfterReceives`,
 * the same on every provider so portable code never depends on one admin's default. It leaves
 * room for the webhook worker's default retry policy (15 attempts) plus a crash or two, so a
 * queue made with the defaults is one `DeliveryWorker` accepts as it is.
 */
export const DEFAULT_REDRIVE_AFTER_RECEIVES = 20;
