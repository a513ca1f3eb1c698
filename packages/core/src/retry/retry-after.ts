const DELTA_SECONDS = /^\d+$/;

/**
 * The longest wait a `Retry-After` is read as, unless the caller says otherwise: a server that
 * asks for more than a day is clamped to it rather than stalling a consumer for weeks. Callers
 * with a tighter rule (a retry policy, a client's own cap) pass `maxMs`.
 */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** Longer than any HTTP-date form; a longer header is garbage and never reaches `Date.parse`. */
const MAX_HEADER_LENGTH = 64;

export interface RetryAfterOptions {
  /** "Now" in epoch milliseconds, for an HTTP-date; injected so tests need no real clock. */
  nowMs?: number;
  /** The result is clamped to this; defaults to {@link MAX_RETRY_AFTER_MS}. */
  maxMs?: number;
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) as milliseconds to wait: delta-seconds (`120`) or an
 * HTTP-date in any of its three forms, relative to `nowMs`. A date in the past means 0; the
 * result is at most `maxMs`. Anything else (negative, fractional, a unit, garbage, too long) is
 * `undefined`: a malformed header is ignored, never trusted as zero. Of repeated headers the
 * first counts.
 */
export function parseRetryAfterMs(
  value: string | readonly string[] | undefined,
  options: RetryAfterOptions = {},
): number | undefined {
  const nowMs = options.nowMs ?? Date.now();
  const maxMs = options.maxMs ?? MAX_RETRY_AFTER_MS;
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || raw.length > MAX_HEADER_LENGTH) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (DELTA_SECONDS.test(text)) return Math.min(Number(text) * 1000, maxMs);
  // HTTP-dates always name the weekday or month in letters; requiring one keeps Date.parse's
  // leniency ("-5", "1.5", "2024") out of it.
  if (!/[a-z]/i.test(text)) return undefined;
  // HTTP-dates are always GMT, but asctime() form names no zone and Date.parse would read it
  // as local time.
  const at = Date.parse(/\b(GMT|UTC|Z)\b|[+-]\d{4}$/i.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), maxMs);
}
