import { MAX_EVENT_ID_BYTES } from '@queueport/core';
import { checkAttemptInput } from './attempts/attempt-validation';
import { invalidArgument } from './errors';
import type {
  ClaimRequest,
  LedgerState,
  ListRequest,
  ReleaseRequest,
  ScanRequest,
  SettleRequest,
} from './ledger';

/**
 * Every input is checked here, once for both stores, before any SQL runs. Whatever SQLite would
 * take but PostgreSQL would refuse (a NUL byte in TEXT, a number out of BIGINT's range, a
 * fraction in an integer column), or either would store differently from what was given (a
 * lone surrogate, which becomes U+FFFD in UTF-8), is INVALID_ARGUMENT, the same for both.
 */

/** Outcomes are short labels ("http 503"); longer ones are cut, never refused (see `outcomeOf`). */
export const MAX_OUTCOME_CHARS = 1000;
/** The most rows one scan returns. */
export const MAX_SCAN_LIMIT = 10_000;
/**
 * The longest lease, and the oldest age a scan or prune looks back: 100 years. Any epoch time
 * within it stays a safe integer in milliseconds and fits BIGINT.
 */
export const MAX_DURATION_SECONDS = 3_155_760_000;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const MAX_OWNER_CHARS = 512;
/** The envelope's rule for event ids (no control characters), and PostgreSQL's: no NUL in TEXT. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
/** Epoch milliseconds the ledger stores: whole, and before the year 287396. */
const MAX_EPOCH_MS = Number.MAX_SAFE_INTEGER;

const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** An identifier both stores keep exactly as given, byte for byte. */
function identifierProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (!isWellFormed(value)) return 'must not contain a lone surrogate (it is not well-formed UTF-16)';
  if (hasControlCharacter(value)) return 'must not contain control characters';
  return undefined;
}

export function checkRequest(request: unknown, what: string): void {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw invalidArgument(`${what} takes a request object`, { field: 'request' });
  }
}

export function checkEventId(eventId: unknown, field = 'eventId'): asserts eventId is string {
  const problem = identifierProblem(eventId);
  if (problem) throw invalidArgument(`${field} ${problem}`, { field });
  if (Buffer.byteLength(eventId as string, 'utf8') > MAX_EVENT_ID_BYTES) {
    throw invalidArgument(`${field} is longer than ${MAX_EVENT_ID_BYTES} bytes`, { field });
  }
}

function checkOwner(owner: unknown, eventId: string): asserts owner is string {
  const problem = identifierProblem(owner);
  if (problem || (owner as string).length > MAX_OWNER_CHARS) {
    throw invalidArgument(
      `owner must be a non-empty string of at most ${MAX_OWNER_CHARS} characters, well-formed and without control characters`,
      { event_id: eventId, field: 'owner' },
    );
  }
}

function isDuration(seconds: unknown): seconds is number {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds <= MAX_DURATION_SECONDS;
}

export function checkClaim(request: ClaimRequest): void {
  checkRequest(request, 'claim');
  checkEventId(request.eventId);
  const details = { event_id: request.eventId };
  if (typeof request.payloadSha256 !== 'string' || !SHA256_HEX.test(request.payloadSha256)) {
    throw invalidArgument('payloadSha256 must be 64 lowercase hex characters', {
      ...details,
      field: 'payloadSha256',
    });
  }
  checkOwner(request.owner, request.eventId);
  if (!isDuration(request.leaseSeconds) || request.leaseSeconds <= 0) {
    throw invalidArgument(`leaseSeconds must be a positive number of at most ${MAX_DURATION_SECONDS}`, {
      ...details,
      field: 'leaseSeconds',
    });
  }
}

export function checkSettle(request: SettleRequest | ReleaseRequest): void {
  checkRequest(request, 'settle');
  checkEventId(request.eventId);
  checkOwner(request.owner, request.eventId);
  if (typeof request.outcome !== 'string') {
    throw invalidArgument('outcome must be a string', { event_id: request.eventId, field: 'outcome' });
  }
  if (request.ambiguous !== undefined && typeof request.ambiguous !== 'boolean') {
    throw invalidArgument('ambiguous must be a boolean when given', {
      event_id: request.eventId,
      field: 'ambiguous',
    });
  }
  const retryAt = (request as ReleaseRequest).retryAt;
  if (
    retryAt !== undefined &&
    !(typeof retryAt === 'number' && Number.isInteger(retryAt) && retryAt >= 0 && retryAt <= MAX_EPOCH_MS)
  ) {
    throw invalidArgument('retryAt must be whole epoch milliseconds (a safe integer ≥ 0)', {
      event_id: request.eventId,
      field: 'retryAt',
    });
  }
  if (request.attempt !== undefined) checkAttemptInput(request.attempt, request.eventId);
}

/**
 * The outcome is recorded after the side effect happened: refusing an odd one would lose a
 * delivery, so it is cut to MAX_OUTCOME_CHARS and made storable instead: NUL (which PostgreSQL
 * TEXT cannot hold) and lone surrogates (including one left by the cut) become U+FFFD.
 */
export function outcomeOf(outcome: string): string {
  const cut = outcome.length > MAX_OUTCOME_CHARS ? `${outcome.slice(0, MAX_OUTCOME_CHARS - 1)}…` : outcome;
  return (cut as unknown as { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '\ufffd');
}

export function checkLimit(limit: unknown): asserts limit is number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SCAN_LIMIT) {
    throw invalidArgument(`limit must be an integer from 1 to ${MAX_SCAN_LIMIT}`, { field: 'limit' });
  }
}

export function checkOlderThan(seconds: unknown): asserts seconds is number {
  if (!isDuration(seconds) || seconds < 0) {
    throw invalidArgument(`olderThanSeconds must be a number from 0 to ${MAX_DURATION_SECONDS}`, {
      field: 'olderThanSeconds',
    });
  }
}

export function checkScan(request: ScanRequest): void {
  checkRequest(request, 'scanPending');
  checkOlderThan(request.olderThanSeconds);
  checkLimit(request.limit);
  checkAfter(request.after);
}

/** A page cursor is the last event id of the previous page: the same rules as an event id. */
export function checkAfter(after: unknown): void {
  if (after !== undefined) checkEventId(after, 'after');
}

/** `scanAmbiguous`'s request, for a store to check before reading anything from it. */
export function checkAmbiguousScan(request: { limit: number; after?: string }): void {
  checkRequest(request, 'scanAmbiguous');
  checkLimit(request.limit);
  checkAfter(request.after);
}

const STATES: readonly LedgerState[] = ['processing', 'delivered', 'failed'];

/** `list`'s request, for a store to check before reading anything from it. */
export function checkList(request: ListRequest): void {
  checkRequest(request, 'list');
  checkLimit(request.limit);
  checkAfter(request.after);
  if (request.state !== undefined && !STATES.includes(request.state)) {
    throw invalidArgument(`state must be one of ${STATES.join(', ')} when given`, { field: 'state' });
  }
}

/** `prune`'s request, for a store to check before reading anything from it. */
export function checkPrune(request: { olderThanSeconds: number }): void {
  checkRequest(request, 'prune');
  checkOlderThan(request.olderThanSeconds);
}

/** Seconds → ms, rounded up so a lease is never shorter than asked. */
export function secondsToMs(seconds: number): number {
  return Math.ceil(seconds * 1000);
}
