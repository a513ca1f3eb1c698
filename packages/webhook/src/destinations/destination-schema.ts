import type { SchemaValidateFunction } from 'ajv';
import { optionsAjv } from '../sender/option-validator';
import { MAX_TIMEOUT_MS } from '../sender/sender-schemas';
import { signingSecretProblem } from '../signing/signing-secret';
import {
  HEADER_NAME_PATTERN,
  HEADER_VALUE_PATTERN,
  SENDER_OWNED_NAME_PATTERN,
  SENDER_OWNED_PREFIXES,
} from './header-rules';

// Ids end up in log lines and error messages: control characters there forge log entries.
const ID_PATTERN = '^[^\\p{Cc}]+$';
export const MAX_DESTINATION_ID_LENGTH = 256;
// The request line most servers accept; a longer URL could only ever be answered with 414.
export const MAX_URL_LENGTH = 8192;
/** In-flight sends one worker keeps to one destination at most. */
export const MAX_DESTINATION_CONCURRENCY = 10_000;
export const MAX_RATE_PER_SECOND = 1_000_000;

const webhookUrl: SchemaValidateFunction = (_enabled: boolean, data: unknown) => {
  const problem = urlProblem(data);
  webhookUrl.errors = problem ? [{ keyword: 'webhookUrl', message: problem, params: {} }] : [];
  return problem === undefined;
};

const signingSecret: SchemaValidateFunction = (_enabled: boolean, data: unknown) => {
  const problem = signingSecretProblem(data);
  signingSecret.errors = problem ? [{ keyword: 'signingSecret', message: problem, params: {} }] : [];
  return problem === undefined;
};

const distinctHeaderNames: SchemaValidateFunction = (_enabled: boolean, data: unknown) => {
  const names = Object.keys(data as object).map((name) => name.toLowerCase());
  const distinct = new Set(names).size === names.length;
  distinctHeaderNames.errors = distinct
    ? []
    : [
        {
          keyword: 'distinctHeaderNames',
          message: 'name one header twice (names are case-insensitive)',
          params: {},
        },
      ];
  return distinct;
};

optionsAjv.addKeyword({ keyword: 'webhookUrl', schemaType: 'boolean', type: 'string', validate: webhookUrl });
optionsAjv.addKeyword({
  keyword: 'signingSecret',
  schemaType: 'boolean',
  validate: signingSecret,
});
optionsAjv.addKeyword({
  keyword: 'distinctHeaderNames',
  schemaType: 'boolean',
  type: 'object',
  validate: distinctHeaderNames,
});

const millis = { type: 'number', minimum: 0, refusal: 'must be a finite number of milliseconds ≥ 0' };

/** A `Destination`, as registered or as handed to `send()`. */
export const destinationSchema = {
  type: 'object',
  required: ['id', 'url'],
  additionalProperties: false,
  properties: {
    id: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_DESTINATION_ID_LENGTH,
      pattern: ID_PATTERN,
      refusal: `must be a non-empty string of at most ${MAX_DESTINATION_ID_LENGTH} characters without control characters`,
    },
    // No `refusal` here: the keyword explains what is wrong, and the URL itself is never quoted.
    url: { type: 'string', maxLength: MAX_URL_LENGTH, webhookUrl: true },
    secrets: { type: 'array', items: { signingSecret: true } },
    retry: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxAttempts: { type: 'integer', minimum: 1, refusal: 'must be an integer ≥ 1' },
        baseMs: millis,
        maxMs: millis,
        retryAfterMinMs: millis,
        retryAfterMaxMs: millis,
        jitter: { type: 'number', minimum: 0, maximum: 1, refusal: 'must be a number from 0 to 1' },
      },
    },
    idempotencyKeyStyle: { enum: ['bare', 'structured'] },
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMEOUT_MS,
      refusal: `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`,
    },
    concurrency: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_DESTINATION_CONCURRENCY,
      refusal: `must be a whole number from 1 to ${MAX_DESTINATION_CONCURRENCY}`,
    },
    rateLimit: {
      type: 'object',
      required: ['perSecond'],
      additionalProperties: false,
      properties: {
        perSecond: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: MAX_RATE_PER_SECOND,
          refusal: `must be a number of sends per second above 0 and at most ${MAX_RATE_PER_SECOND}`,
        },
        burst: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RATE_PER_SECOND,
          refusal: `must be a whole number of sends from 1 to ${MAX_RATE_PER_SECOND}`,
        },
      },
    },
    disableAfter: {
      type: 'object',
      required: ['consecutiveFailures'],
      additionalProperties: false,
      properties: {
        consecutiveFailures: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000,
          refusal: 'must be a whole number of failed sends from 1 to 1000000',
        },
        minFailingMs: {
          type: 'integer',
          minimum: 0,
          maximum: Number.MAX_SAFE_INTEGER,
          refusal: 'must be a whole number of milliseconds ≥ 0',
        },
      },
    },
    headers: {
      type: 'object',
      distinctHeaderNames: true,
      propertyNames: {
        allOf: [
          {
            pattern: HEADER_NAME_PATTERN,
            refusal: "is not a valid header name (RFC 9110 allows letters, digits and !#$%&'*+-.^_`|~)",
          },
          {
            not: { pattern: SENDER_OWNED_NAME_PATTERN },
            refusal: `is set by the sender and cannot be replaced (framing, hop-by-hop, idempotency-key, ${SENDER_OWNED_PREFIXES.map((p) => `${p}*`).join(', ')})`,
          },
        ],
      },
      additionalProperties: {
        type: 'string',
        pattern: HEADER_VALUE_PATTERN,
        refusal:
          'must be a string of visible US-ASCII characters, with spaces or tabs only between them (no CR, LF or other control characters)',
      },
    },
  },
} as const;

/** Refusals that do not depend on the sender's SSRF options; the guard decides the rest at send time. */
function urlProblem(url: unknown): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url as string);
  } catch {
    return 'is not a valid absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https (or http) URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  if (parsed.hostname === '') return 'has no host';
  return undefined;
}
