import { HEADER_VALUE_PATTERN } from '../destinations/header-rules';
import { urlPolicyOptionsSchema } from '../ssrf/ssrf-options-schema';

/** setTimeout's limit: a longer delay is silently replaced by 1 ms, timing every request out at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/**
 * The response sample is kept in memory for every request in flight and only serves
 * diagnostics; 16 MiB per request is already far more than any receiver's error page.
 */
export const MAX_RESPONSE_BYTES_LIMIT = 16 * 1024 * 1024;
// The latest Date: a timestamp past it cannot be signed (`new Date` gives Invalid Date).
export const MAX_DATE_MS = 8.64e15;

const timeout = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_TIMEOUT_MS,
  refusal: `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (the longest timer Node.js keeps)`,
} as const;

export const senderOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    connectTimeoutMs: timeout,
    headersTimeoutMs: timeout,
    bodyTimeoutMs: timeout,
    requestTimeoutMs: timeout,
    maxResponseBytes: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RESPONSE_BYTES_LIMIT,
      refusal: `must be a whole number of bytes from 1 to ${MAX_RESPONSE_BYTES_LIMIT}`,
    },
    idempotencyKeyStyle: { enum: ['bare', 'structured'] },
    ssrf: urlPolicyOptionsSchema,
    resolver: { isFunction: true },
    now: { isFunction: true },
    connectionsPerOrigin: {
      type: 'integer',
      minimum: 1,
      maximum: 65_535,
      refusal: 'must be a whole number of connections from 1 to 65535',
    },
    userAgent: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      pattern: HEADER_VALUE_PATTERN,
      refusal: 'must be 1 to 1024 visible US-ASCII characters (spaces only between them, no CR or LF)',
    },
  },
} as const;

/** The request handed to `send()`; its destination is checked in full on its own. */
export const webhookRequestSchema = {
  type: 'object',
  required: ['destination', 'eventId', 'body'],
  additionalProperties: false,
  properties: {
    destination: { type: 'object' },
    // Whether the id can be a header depends on the key style: formatIdempotencyKey decides.
    eventId: { type: 'string' },
    body: { type: 'string' },
    timestamp: {
      type: 'number',
      minimum: 0,
      maximum: MAX_DATE_MS,
      refusal: `must be Unix milliseconds from 0 to ${MAX_DATE_MS}`,
    },
  },
} as const;
