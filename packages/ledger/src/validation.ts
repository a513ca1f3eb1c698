import { MAX_EVENT_ID_BYTES } from '@queueport/core';
import { invalidArgument } from './errors';
import type { ClaimRequest, ReleaseRequest, ScanRequest, SettleRequest } from './ledger';

/** Outcomes are short labels ("http 503"); longer ones are cut, never refused (see `outcomeOf`). */
export const MAX_OUTCOME_CHARS = 1000;
/** The most rows one scan returns. */
export const MAX_SCAN_LIMIT = 10_000;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const MAX_OWNER_CHARS = 512;

export function checkEventId(eventId: unknown): asserts eventId is string {
  if (typeof eventId !== 'string' || eventId.length === 0) {
    throw invalidArgument('eventId must be a non-empty string');
  }
  if (Buffer.byteLength(eventId, 'utf8') > MAX_EVENT_ID_BYTES) {
    throw invalidArgument(`eventId is longer than ${MAX_EVENT_ID_BYTES} bytes`);
  }
}

function checkOwner(owner: unknown, eventId: string): asserts owner is string {
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_OWNER_CHARS) {
    throw invalidArgument(`owner must be a non-empty string of at most ${MAX_OWNER_CHARS} characters`, {
      event_id: eventId,
    });
  }
}

export function checkClaim(request: ClaimRequest): void {
  checkEventId(request.eventId);
  const details = { event_id: request.eventId };
  if (typeof request.payloadSha256 !== 'string' || !SHA256_HEX.test(request.payloadSha256)) {
    throw invalidArgument('payloadSha256 must be 64 lowercase hex characters', details);
  }
  checkOwner(request.owner, request.eventId);
  if (
    typeof request.leaseSeconds !== 'number' ||
    !Number.isFinite(request.leaseSeconds) ||
    request.leaseSeconds <= 0
  ) {
    throw invalidArgument('leaseSeconds must be a positive number', details);
  }
}

export function checkSettle(request: SettleRequest | ReleaseRequest): void {
  checkEventId(request.eventId);
  checkOwner(request.owner, request.eventId);
  if (typeof request.outcome !== 'string') {
    throw invalidArgument('outcome must be a string', { event_id: request.eventId });
  }
  const retryAt = (request as ReleaseRequest).retryAt;
  if (retryAt !== undefined && (typeof retryAt !== 'number' || !Number.isFinite(retryAt))) {
    throw invalidArgument('retryAt must be epoch milliseconds', { event_id: request.eventId });
  }
}

/**
 * The outcome is recorded after the side effect happened: refusing an over-long one would lose a
 * delivery, so it is cut to MAX_OUTCOME_CHARS instead.
 */
export function outcomeOf(outcome: string): string {
  return outcome.length > MAX_OUTCOME_CHARS ? `${outcome.slice(0, MAX_OUTCOME_CHARS - 1)}…` : outcome;
}

export function checkLimit(limit: unknown): asserts limit is number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SCAN_LIMIT) {
    throw invalidArgument(`limit must be an integer from 1 to ${MAX_SCAN_LIMIT}`);
  }
}

export function checkOlderThan(seconds: unknown): asserts seconds is number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw invalidArgument('olderThanSeconds must be a number ≥ 0');
  }
}

export function checkScan(request: ScanRequest): void {
  checkOlderThan(request.olderThanSeconds);
  checkLimit(request.limit);
  checkAfter(request.after);
}

export function checkAfter(after: unknown): void {
  if (after !== undefined && (typeof after !== 'string' || after.length === 0)) {
    throw invalidArgument('after must be an event id');
  }
}

/** Seconds → ms, rounded up so a lease is never shorter than asked. */
export function secondsToMs(seconds: number): number {
  return Math.ceil(seconds * 1000);
}
