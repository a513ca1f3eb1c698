import { type ErrorCode, RETRYABLE_BY_DEFAULT } from './error-codes';

export interface QueueErrorOptions {
  /** Overrides the code's default; `retryable` decides retry versus dead-letter. */
  retryable?: boolean;
  /** For RATE_LIMITED: how long the provider asked us to wait. */
  retryAfterSeconds?: number;
  /** Machine-readable facts about the failure (limits, sizes, the offending field). Never secrets. */
  details?: Readonly<Record<string, unknown>>;
  /** The provider's own error, kept for debugging. Drivers must redact it before attaching. */
  cause?: unknown;
}

/**
 * The only error queueport throws. Messages are written for people and never carry a secret:
 * anything taken from a provider's response goes through `redactSecrets` first.
 */
export class QueueError extends Error {
  override readonly name = 'QueueError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: QueueErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT[code];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details ?? {};
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
      details: this.details,
    };
  }
}

export function isQueueError(value: unknown, code?: ErrorCode): value is QueueError {
  return value instanceof QueueError && (code === undefined || value.code === code);
}
