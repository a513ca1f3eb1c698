import { QueueError } from '@queueport/core';

/**
 * `bare`: `Idempotency-Key: payment_8472:settled:v3`, as Stripe and most receivers read it.
 * `structured`: an RFC 8941 sf-string, `Idempotency-Key: "payment_8472:settled:v3"`, as the
 * IETF httpapi draft writes it.
 */
export type IdempotencyKeyStyle = 'bare' | 'structured';

export const DEFAULT_IDEMPOTENCY_KEY_STYLE: IdempotencyKeyStyle = 'bare';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

// Visible ASCII plus space: exactly what an sf-string may hold (RFC 8941 §3.3.3).
const SF_STRING_CHARS = /^[\x20-\x7e]*$/;
// A bare header value additionally loses leading and trailing spaces in transit.
const BARE_CHARS = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The header value for an event id. Ids outside printable ASCII are refused rather than
 * percent-encoded: the key must stay byte-identical to `webhook-id` (the same event id), so a
 * receiver can match the two without decoding anything.
 */
export function formatIdempotencyKey(
  eventId: string,
  style: IdempotencyKeyStyle = DEFAULT_IDEMPOTENCY_KEY_STYLE,
): string {
  if (style !== 'structured' && style !== 'bare') {
    // Not quoted back: it is the caller's value, and may not even be a string.
    throw new QueueError('INVALID_ARGUMENT', 'idempotencyKeyStyle must be "bare" or "structured"', {
      details: { field: 'idempotencyKeyStyle' },
    });
  }
  // A regex test would read a number as its digits and hand the number back as the key.
  if (typeof eventId !== 'string') throw unsendable(style);
  if (style === 'structured') {
    if (eventId.length === 0 || !SF_STRING_CHARS.test(eventId)) throw unsendable(style);
    return `"${eventId.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  }
  if (!BARE_CHARS.test(eventId)) throw unsendable(style);
  return eventId;
}

/**
 * Reads either form back: a value that starts with `"` must be a well-formed sf-string
 * (otherwise undefined), anything else is taken as the bare key.
 */
export function parseIdempotencyKey(headerValue: string): string | undefined {
  if (typeof headerValue !== 'string') return undefined;
  const value = headerValue.trim();
  if (value === '') return undefined;
  if (!value.startsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const next = value[++i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
    } else if (c === '"') {
      // RFC 8941 allows parameters after the string; the key is the string itself.
      const rest = value.slice(i + 1);
      return rest === '' || rest.startsWith(';') ? out : undefined;
    } else if (c < ' ' || c > '~') {
      return undefined;
    } else {
      out += c;
    }
  }
  return undefined;
}

function unsendable(style: IdempotencyKeyStyle): QueueError {
  // The id itself stays out of the message: it is the caller's data, and it may be the problem.
  return new QueueError(
    'INVALID_ARGUMENT',
    `event id cannot be sent as a ${style} Idempotency-Key: it must be non-empty printable ASCII` +
      (style === 'bare' ? ' without leading or trailing spaces' : ''),
    { details: { field: 'eventId', idempotencyKeyStyle: style } },
  );
}
