import { invalidArgument } from '../errors';
import { checkEventId, checkLimit, checkOlderThan, checkRequest } from '../validation';
import type { ListAttemptsRequest } from './attempt-log';
import { type AttemptInput, MAX_ATTEMPT_DESTINATION_ID_CHARS, MAX_ERROR_CLASS_CHARS } from './attempt-record';

/**
 * An attempt is checked with its settle, before any SQL runs, so a malformed one fails the
 * settle as INVALID_ARGUMENT in both stores alike (a caller's bug, found by its first test)
 * instead of a database error. Only the response sample, free text from the receiver, is never
 * refused: it is cut and cleaned (attempt-redaction.ts).
 */

/** Wider than a lease: an attempt may be recorded long after it began (a slow receiver). */
const MAX_ATTEMPT_DURATION_MS = 3_155_760_000_000;
const ERROR_CLASS = new RegExp(`^[a-z][a-z0-9_.-]{0,${MAX_ERROR_CLASS_CHARS - 1}}$`);
/** Claim numbers are INTEGER columns in both stores. */
const MAX_ATTEMPT_NUMBER = 2_147_483_647;

const isWholeMs = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;

export function checkAttemptInput(attempt: AttemptInput, eventId: string): void {
  const refuse = (field: string, rule: string) =>
    invalidArgument(`attempt.${field} ${rule}`, { event_id: eventId, field: `attempt.${field}` });
  if (attempt === null || typeof attempt !== 'object' || Array.isArray(attempt)) {
    throw invalidArgument('attempt must be an object when given', { event_id: eventId, field: 'attempt' });
  }
  if (!isWholeMs(attempt.startedAt, Number.MAX_SAFE_INTEGER)) {
    throw refuse('startedAt', 'must be whole epoch milliseconds (a safe integer ≥ 0)');
  }
  if (!isWholeMs(attempt.durationMs, MAX_ATTEMPT_DURATION_MS)) {
    throw refuse('durationMs', `must be whole milliseconds from 0 to ${MAX_ATTEMPT_DURATION_MS}`);
  }
  const { statusCode, errorClass, responseSample, destinationId } = attempt;
  if (
    statusCode !== undefined &&
    statusCode !== null &&
    !(Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599)
  ) {
    throw refuse('statusCode', 'must be an HTTP status from 100 to 599, or null');
  }
  if (
    errorClass !== undefined &&
    errorClass !== null &&
    !(typeof errorClass === 'string' && ERROR_CLASS.test(errorClass))
  ) {
    throw refuse(
      'errorClass',
      `must be a lower-case token of at most ${MAX_ERROR_CLASS_CHARS} characters (a-z, 0-9, "_", ".", "-"), or null`,
    );
  }
  if (responseSample !== undefined && responseSample !== null) {
    if (typeof responseSample !== 'object' || typeof responseSample.body !== 'string') {
      throw refuse('responseSample', 'must be { body: string, truncated?: boolean }, or null');
    }
    if (responseSample.truncated !== undefined && typeof responseSample.truncated !== 'boolean') {
      throw refuse('responseSample.truncated', 'must be a boolean when given');
    }
  }
  if (destinationId !== undefined && destinationId !== null && !isDestinationId(destinationId)) {
    throw refuse(
      'destinationId',
      `must be a non-empty string of at most ${MAX_ATTEMPT_DESTINATION_ID_CHARS} characters, well-formed and without control characters, or null`,
    );
  }
}

function isDestinationId(id: unknown): boolean {
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= MAX_ATTEMPT_DESTINATION_ID_CHARS &&
    (id as unknown as { isWellFormed(): boolean }).isWellFormed() &&
    !/\p{Cc}/u.test(id)
  );
}

export function checkListAttempts(request: ListAttemptsRequest): void {
  checkRequest(request, 'listAttempts');
  checkEventId(request.eventId);
  checkLimit(request.limit);
  const from = request.fromAttempt;
  if (from !== undefined && !(Number.isInteger(from) && from >= 1 && from <= MAX_ATTEMPT_NUMBER)) {
    throw invalidArgument(`fromAttempt must be a whole number from 1 to ${MAX_ATTEMPT_NUMBER} when given`, {
      field: 'fromAttempt',
    });
  }
}

export function checkPruneAttempts(request: { olderThanSeconds: number }): void {
  checkRequest(request, 'pruneAttempts');
  checkOlderThan(request.olderThanSeconds);
}
