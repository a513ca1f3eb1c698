import { QueueError } from './queue-error';
import { redactSecrets } from './redact';

/** Socket-level failures that mean "the provider could not be reached this time". */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export type ErrorClassifier = (error: unknown) => QueueError | undefined;

/**
 * Maps anything a driver threw onto the taxonomy: the driver's own classifier first, then
 * transient network failures, then INTERNAL. The original is kept only as `cause`.
 */
export interface NormalizeErrorOptions {
  /**
   * The secret values this driver was configured with (API keys, passwords). They are masked in
   * every message and cause this function writes, whatever their shape: a key without a known
   * prefix is invisible to the patterns alone.
   */
  secrets?: readonly string[];
}

export function normalizeError(
  error: unknown,
  driverName: string,
  classify?: ErrorClassifier,
  options: NormalizeErrorOptions = {},
): QueueError {
  if (error instanceof QueueError) return error;
  const secrets = options.secrets ?? [];
  const classified = classify?.(error);
  if (classified) return classified;
  const code = transientNetworkCode(error);
  if (code) {
    return new QueueError('UNAVAILABLE', `${driverName}: provider unreachable (${code})`, {
      cause: sanitize(error, secrets),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new QueueError('INTERNAL', `${driverName}: ${redactSecrets(message, secrets)}`, {
    cause: sanitize(error, secrets),
  });
}

/** Wrappers (fetch's TypeError, SDK errors) hide the socket error a few causes down. */
function transientNetworkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Loggers print `cause`, so the original error (which may echo a request with its bearer token)
 * is kept only as a redacted summary.
 */
function sanitize(
  error: unknown,
  secrets: readonly string[],
): { name: string; message: string; code?: string } {
  const name = error instanceof Error ? error.name : typeof error;
  const message = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { name, message, code } : { name, message };
}
