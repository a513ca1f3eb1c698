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
 * Marks every QueueError, whichever copy of this module made it. An application can load the
 * ESM build of one package beside the CommonJS build of another; each build has its own class,
 * so `instanceof` alone would call the other build's errors foreign and a retryable provider
 * error would be treated as INTERNAL. `Symbol.for` is shared by every copy in the process.
 */
const QUEUE_ERROR_BRAND = Symbol.for('@queueport/core.QueueError');

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

  /**
   * `x instanceof QueueError` holds for a QueueError of any build (see QUEUE_ERROR_BRAND).
   * Subclasses keep the ordinary prototype-chain check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, maybe a subclass
    if (this !== QueueError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[QUEUE_ERROR_BRAND] === true
    );
  }

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

Object.defineProperty(QueueError.prototype, QUEUE_ERROR_BRAND, { value: true });

export function isQueueError(value: unknown, code?: ErrorCode): value is QueueError {
  return value instanceof QueueError && (code === undefined || value.code === code);
}
