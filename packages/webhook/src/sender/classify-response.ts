import { isQueueError, parseRetryAfterMs, redactSecrets } from '@queueport/core';
import type { DeliveryOutcome } from '../sender-types';
import { findDestinationRefusal } from '../ssrf/destination-refused-error';

/** An outcome before the sender stamps how long the attempt took. */
export type Classification = DeliveryOutcome extends infer O
  ? O extends unknown
    ? Omit<O, 'attemptMs'>
    : never
  : never;

export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface ResponseClassifyOptions {
  /** For Retry-After HTTP-dates. */
  nowMs: number;
}

/**
 * Status → outcome, following Standard Webhooks: only 2xx is success; a redirect is a failure
 * that will not fix itself (following it would let a receiver steer us past the SSRF guard);
 * 410 asks to be disabled; 408, 429 and 5xx are worth another try. So is 409: the
 * Idempotency-Key draft answers it while the original request with the same key is still in
 * progress, and treating it as final would drop an event whose first attempt may yet fail.
 */
export function classifyResponse(
  status: number,
  headers: HeaderBag,
  options: ResponseClassifyOptions,
): Classification {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status >= 300 && status < 400) {
    return { kind: 'terminal', status, reason: `http ${status}: redirects are never followed` };
  }
  if (status === 410)
    return { kind: 'disable', status, reason: 'http 410: the destination asked to be disabled' };
  if (status === 408 || status === 409 || status === 429 || (status >= 500 && status < 600)) {
    // RFC 9110 and 6585 define Retry-After for 503 and 429; elsewhere it is not a promise.
    // Reported as asked, no cap here: the destination's retry policy bounds it (its
    // retryAfterMaxMs may exceed the parser's default day), where every Retry-After is merged.
    const retryAfterMs =
      status === 429 || status === 503
        ? parseRetryAfterMs(header(headers, 'retry-after'), {
            nowMs: options.nowMs,
            maxMs: Number.MAX_SAFE_INTEGER,
          })
        : undefined;
    if (retryAfterMs === undefined) return { kind: 'retry', status, reason: `http ${status}` };
    return { kind: 'retry', status, reason: `http ${status}, retry after ${retryAfterMs} ms`, retryAfterMs };
  }
  if (status >= 400 && status < 500) return { kind: 'terminal', status, reason: `http ${status}` };
  return { kind: 'terminal', status, reason: `http ${status}: not a valid final status` };
}

export interface ErrorClassifyOptions {
  /** Why the request's signal fired, when it did: our overall timeout or the caller. */
  aborted?: 'timeout' | 'caller';
  requestTimeoutMs?: number;
  /** Strings that must never reach a reason (signing secrets, header values). */
  knownSecrets?: readonly string[];
  /**
   * The whole request had been written to a connection when the error came: the receiver may
   * have acted on it, so a retry outcome is `ambiguous`.
   */
  sent?: boolean;
}

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'temporary DNS failure',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'headers timeout',
  UND_ERR_BODY_TIMEOUT: 'body timeout',
  UND_ERR_SOCKET: 'socket error',
  UND_ERR_CLOSED: 'connection closed',
};

// Errors that say the request itself is malformed: sending it again cannot help.
const INVALID_REQUEST_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
]);

/**
 * Thrown error → outcome. The SSRF refusal is terminal; a request that cannot be built is
 * terminal; everything on the wire (refused, reset, timeouts, DNS) is retried, since the
 * next attempt may well find the endpoint back.
 */
export function classifyError(error: unknown, options: ErrorClassifyOptions = {}): Classification {
  const refusal = findDestinationRefusal(error);
  if (refusal) return { kind: 'terminal', reason: refusal.message, refusal: refusal.refusal };
  if (isQueueError(error) && !error.retryable && options.aborted === undefined) {
    return { kind: 'terminal', reason: redact(error.message, options) };
  }
  const code = errorCode(error);
  if (code && INVALID_REQUEST_CODES.has(code) && options.aborted === undefined) {
    return { kind: 'terminal', reason: `invalid request: ${redact(messageOf(error), options)}` };
  }
  const reason = wireFailure(error, code, options);
  if (!options.sent) return { kind: 'retry', reason };
  // The request left and no usable answer came back: the receiver may have acted on it.
  return { kind: 'retry', reason: `${reason}, after the request was sent`, ambiguous: true };
}

/** Why a request on the wire failed, in words that quote no secret. */
function wireFailure(error: unknown, code: string | undefined, options: ErrorClassifyOptions): string {
  if (options.aborted === 'timeout') {
    const limit = options.requestTimeoutMs === undefined ? '' : ` after ${options.requestTimeoutMs} ms`;
    return `request timeout${limit}`;
  }
  if (options.aborted === 'caller') return 'aborted by the caller before completion';
  if (code && NETWORK_REASONS[code]) return `${NETWORK_REASONS[code]} (${code})`;
  const described = code ? `${code}: ${messageOf(error)}` : messageOf(error);
  return `network error: ${redact(described, options)}`;
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return typeof value === 'string' ? value : value?.[0];
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function redact(text: string, options: ErrorClassifyOptions): string {
  return redactSecrets(text, options.knownSecrets ?? []);
}
