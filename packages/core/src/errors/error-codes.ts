/** The one error taxonomy. Drivers map provider failures onto these; applications switch on them. */
export const ERROR_CODES = [
  'PAYLOAD_TOO_LARGE',
  'DELAY_OUT_OF_RANGE',
  'INVALID_ENVELOPE',
  'INVALID_ARGUMENT',
  'IDEMPOTENCY_CONFLICT',
  'LEASE_LOST',
  'RATE_LIMITED',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'UNAVAILABLE',
  'CLOSED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether a failure with this code is worth retrying when nothing more specific is known. */
export const RETRYABLE_BY_DEFAULT: Readonly<Record<ErrorCode, boolean>> = {
  PAYLOAD_TOO_LARGE: false,
  DELAY_OUT_OF_RANGE: false,
  INVALID_ENVELOPE: false,
  INVALID_ARGUMENT: false,
  IDEMPOTENCY_CONFLICT: false,
  LEASE_LOST: false,
  RATE_LIMITED: true,
  UNAUTHORIZED: false,
  NOT_FOUND: false,
  UNAVAILABLE: true,
  CLOSED: false,
  INTERNAL: false,
};
