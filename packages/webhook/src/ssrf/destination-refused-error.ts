import { QueueError } from '@queueport/core';

/** Why a destination was refused; stable strings a caller can switch on. */
export type RefusalReason =
  | 'invalid-url'
  | 'scheme'
  | 'credentials'
  | 'host-not-allowed'
  | 'address'
  | 'no-address'
  | 'invalid-secret';

export interface RefusalDetails {
  reason: RefusalReason;
  /** The host as written in the URL (never the path or query, which may carry tokens). */
  host?: string;
  /** The IP address that was refused, after unwrapping IPv4-mapped / NAT64 / 6to4 forms. */
  address?: string;
  /** ipaddr.js's name for the address's range (`loopback`, `private`, `linkLocal`, ...). */
  range?: string;
}

/**
 * A destination the SSRF guard will not send to. It is a QueueError (INVALID_ARGUMENT, never
 * retryable) so the worker's generic handling already treats it as terminal, and it is thrown
 * from inside undici's connect path, so `classifyError` finds it by identity, not by message.
 */
export class DestinationRefusedError extends QueueError {
  readonly refusal: Readonly<RefusalDetails>;

  constructor(message: string, refusal: RefusalDetails) {
    super('INVALID_ARGUMENT', message, { retryable: false, details: { ...refusal } });
    this.refusal = Object.freeze({ ...refusal });
  }
}

export function isDestinationRefused(error: unknown): error is DestinationRefusedError {
  return error instanceof DestinationRefusedError;
}

/** undici and node:net may wrap the lookup's error; follow `cause` a few levels to find it. */
export function findDestinationRefusal(error: unknown): DestinationRefusedError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (current instanceof DestinationRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
