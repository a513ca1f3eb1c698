const DELTA_SECONDS = /^\d+$/;

/**
 * `Retry-After` as milliseconds from `nowMs`: either delta-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`, relative to the injected now so tests need no real clock).
 * A date in the past means "now" (0). Anything else (negative, fractional, garbage) is
 * undefined: a malformed header is ignored, never trusted as zero.
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (DELTA_SECONDS.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
  }
  // HTTP-dates always name the weekday or month in letters; requiring one keeps Date.parse's
  // leniency ("-5", "1.5", "2024") out of it.
  if (!/[a-z]/i.test(text)) return undefined;
  // HTTP-dates are always GMT, but asctime() form names no zone and Date.parse would read it
  // as local time.
  const at = Date.parse(/\b(GMT|UTC|Z)\b|[+-]\d{4}$/i.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
