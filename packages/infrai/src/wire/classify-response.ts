import { type ErrorCode, parseRetryAfterMs, QueueError } from '@queueport/core/driver';
import { safeErrorCode, safeMessage } from './response-bounds';

/** Infrai's error codes (from discovery's error lists) in the port's terms. */
const CODES: Readonly<Record<string, ErrorCode>> = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'UNAUTHORIZED',
  INSUFFICIENT_CREDIT: 'UNAUTHORIZED',
  RATE_LIMITED: 'RATE_LIMITED',
  QUEUE_NOT_FOUND: 'NOT_FOUND',
  NOT_FOUND: 'NOT_FOUND',
  RECEIPT_HANDLE_INVALID: 'LEASE_LOST',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  VALIDATION_ERROR: 'INVALID_ARGUMENT',
  QUEUE_ALREADY_EXISTS: 'INVALID_ARGUMENT',
  DEAD_LETTER_QUEUE_NOT_FOUND: 'INVALID_ARGUMENT',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  INTERNAL_ERROR: 'UNAVAILABLE',
  SERVICE_UNAVAILABLE: 'UNAVAILABLE',
};

/** The longest wait a `Retry-After` is taken for: a server's larger value would stall a consumer for days. */
const MAX_RETRY_AFTER_MS = 3_600_000;

export interface InfraiFailure {
  /** 0 for a batch entry whose code the snapshot does not list with a status. */
  status: number;
  /** The envelope's `error`, where the answer had one. */
  error: { code?: unknown; message?: unknown; hint?: unknown; retryable?: unknown } | null | undefined;
  retryAfter: string | undefined;
  requestId: string | undefined;
}

/**
 * One failed answer as a QueueError: Infrai's own code first, then its `retryable` flag, then
 * the HTTP status. 402 is terminal and says so: retrying cannot buy credit. Infrai's message is
 * bounded and redacted (`secrets`: the values the adapter was configured with, masked whatever
 * their shape), a code that is not an upper-case word is not taken as one, and the request
 * (with its bearer key) is never part of the error.
 */
export function classifyInfraiFailure(
  failure: InfraiFailure,
  where: string,
  secrets: readonly string[] = [],
): QueueError {
  const infraiCode = safeErrorCode(failure.error?.code, secrets) ?? `HTTP_${failure.status}`;
  const said = safeMessage(failure.error?.message, secrets);
  const retryableFlag = typeof failure.error?.retryable === 'boolean' ? failure.error.retryable : undefined;
  const code: ErrorCode =
    CODES[infraiCode] ??
    (failure.status === 401 || failure.status === 403
      ? 'UNAUTHORIZED'
      : failure.status === 402
        ? 'UNAUTHORIZED'
        : failure.status === 404
          ? 'NOT_FOUND'
          : failure.status === 429
            ? 'RATE_LIMITED'
            : failure.status >= 500 || retryableFlag
              ? 'UNAVAILABLE'
              : 'INTERNAL');
  const terminalCredit = infraiCode === 'INSUFFICIENT_CREDIT' || failure.status === 402;
  const retryAfterMs = parseRetryAfterMs(failure.retryAfter, { maxMs: MAX_RETRY_AFTER_MS });
  const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  const message = terminalCredit
    ? `${where}: the Infrai account has no credit left (INSUFFICIENT_CREDIT, HTTP 402); this is terminal and is not retried: add credit, then run again`
    : `${where}: ${said || 'Infrai refused the request'} (${infraiCode}${failure.status ? `, HTTP ${failure.status}` : ''})`;
  return new QueueError(code, message, {
    // Infrai's own flag wins over the code's default, except where it could loop forever.
    retryable: terminalCredit
      ? false
      : (retryableFlag ?? (code === 'UNAVAILABLE' || code === 'RATE_LIMITED')),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    details: {
      infraiCode,
      ...(failure.status ? { httpStatus: failure.status } : {}),
      ...(terminalCredit ? { terminal: true } : {}),
      ...(failure.requestId ? { requestId: failure.requestId } : {}),
    },
  });
}
