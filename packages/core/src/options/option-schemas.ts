/**
 * JSON schemas of the public option objects. They check types and the bounds that do not depend
 * on a driver; bounds that come from the capability manifest (lease, long poll, batch sizes) are
 * checked against it where the options are used, with the same typed error.
 *
 * Two keywords of our own cover what JSON has no type for: `isFunction` (hooks, callbacks) and
 * `isAbortSignal`.
 */

const fn = { isFunction: true } as const;
const finite = { type: 'number' } as const;
const nonNegative = { type: 'number', minimum: 0 } as const;
/** A process timeout in milliseconds: a timer past 2^31 - 1 ms would fire at once. */
const timeoutMs = { type: 'number', minimum: 0, maximum: 2_147_483_647 } as const;
/** Where unheard problem events are logged: anything with a `warn(message)`. */
const logger = { type: 'object', required: ['warn'], properties: { warn: fn } } as const;

export const retryPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxAttempts: { type: 'integer', minimum: 1 },
    baseMs: nonNegative,
    maxMs: nonNegative,
    jitter: { type: 'number', minimum: 0, maximum: 1 },
    retryAfterMinMs: nonNegative,
    retryAfterMaxMs: nonNegative,
  },
} as const;

export const queueOptionsSchema = {
  $id: 'https://queueport.dev/schemas/queue-options.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    retry: retryPolicySchema,
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBodyBytes: { type: 'integer', minimum: 1 },
        maxDelaySeconds: nonNegative,
      },
    },
    clock: {
      type: 'object',
      required: ['now', 'sleep'],
      properties: { now: fn, sleep: fn },
    },
    hooks: {
      type: 'object',
      additionalProperties: false,
      properties: { onRetry: fn, onInvalidMessage: fn, onBridgeError: fn },
    },
    defaultLeaseSeconds: finite,
    // 0 would time every call out before it is made.
    callTimeoutMs: { type: 'number', exclusiveMinimum: 0, maximum: timeoutMs.maximum },
    logger,
    // Each value's shape (a Standard Schema) is checked by checkPayloadSchemas, with its type in the message.
    payloadSchemas: { type: 'object' },
    // The threshold's bound against the manifest (below maxBodyBytes) is checked by the Queue.
    payloadStore: {
      type: 'object',
      additionalProperties: false,
      required: ['store', 'thresholdBytes'],
      properties: {
        store: { type: 'object', required: ['put', 'get'], properties: { put: fn, get: fn, prune: fn } },
        thresholdBytes: { type: 'integer', minimum: 0 },
        maxPayloadBytes: { type: 'integer', minimum: 1 },
      },
    },
    telemetry: { type: 'object', required: ['forQueue'], properties: { forQueue: fn } },
  },
} as const;

export const consumeOptionsSchema = {
  $id: 'https://queueport.dev/schemas/consume-options.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    concurrency: { type: 'integer', minimum: 1 },
    // A lease of 0 would extend itself in a loop: every half lease is every instant.
    leaseSeconds: { type: 'number', exclusiveMinimum: 0 },
    waitSeconds: nonNegative,
    signal: { isAbortSignal: true },
    retry: retryPolicySchema,
    onDeadLetter: fn,
    onError: fn,
    // 0 would time every handler out before it starts.
    handlerTimeoutMs: { type: 'number', exclusiveMinimum: 0, maximum: timeoutMs.maximum },
    logger,
  },
} as const;

/** `consumer.close(options)`, `queue.close(options)`, `worker.close(options)`. */
export const closeOptionsSchema = {
  $id: 'https://queueport.dev/schemas/close-options.json',
  type: 'object',
  additionalProperties: false,
  properties: { timeoutMs },
} as const;

export const receiveOptionsSchema = {
  $id: 'https://queueport.dev/schemas/receive-options.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    maxMessages: { type: 'integer' },
    leaseSeconds: finite,
    waitSeconds: finite,
    signal: { isAbortSignal: true },
  },
} as const;

/** The envelope, attributes, group and delay have checks of their own; this is the wrapper. */
export const publishInputSchema = {
  $id: 'https://queueport.dev/schemas/publish-input.json',
  type: 'object',
  additionalProperties: false,
  required: ['envelope'],
  properties: {
    envelope: {},
    attributes: {},
    groupId: {},
    delaySeconds: {},
  },
} as const;

export const releaseEntrySchema = {
  $id: 'https://queueport.dev/schemas/release-entry.json',
  type: 'object',
  additionalProperties: false,
  required: ['delivery'],
  properties: {
    delivery: {},
    delaySeconds: {},
  },
} as const;
