import { invalidArgument } from '../errors';
import { MAX_BATCH_ENTRIES } from '../ledger';
import { checkEventId, checkLimit, checkRequest, checkSettle } from '../validation';
import {
  type DisableRequest,
  type ListDestinationsRequest,
  type ListParkedRequest,
  MAX_DESTINATION_ID_CHARS,
  MAX_PARKED_BODY_BYTES,
  type ParkedEvent,
  type ParkRequest,
} from './destination-state';

const MAX_EPOCH_MS = Number.MAX_SAFE_INTEGER;

/** The webhook package's rule for destination ids, and both stores': no control characters, no lone surrogate. */
export function checkDestinationId(id: unknown, field = 'destinationId'): asserts id is string {
  const ok =
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= MAX_DESTINATION_ID_CHARS &&
    (id as unknown as { isWellFormed(): boolean }).isWellFormed() &&
    !/\p{Cc}/u.test(id);
  if (!ok) {
    throw invalidArgument(
      `${field} must be a non-empty string of at most ${MAX_DESTINATION_ID_CHARS} characters, well-formed and without control characters`,
      { field },
    );
  }
}

export function checkDisable(request: DisableRequest): void {
  checkRequest(request, 'disable');
  checkDestinationId(request.destinationId);
  if (typeof request.reason !== 'string')
    throw invalidArgument('reason must be a string', { field: 'reason' });
}

export function checkPark(request: ParkRequest): void {
  checkRequest(request, 'park');
  // The lease rules are a settle's: the same owner, outcome, ambiguity and attempt checks.
  checkSettle({
    eventId: request.eventId,
    owner: request.owner,
    outcome: request.outcome ?? '',
    ...(request.ambiguous === undefined ? {} : { ambiguous: request.ambiguous }),
    ...(request.attempt === undefined ? {} : { attempt: request.attempt }),
  });
  checkDestinationId(request.destinationId);
  if (request.attemptMade !== undefined && typeof request.attemptMade !== 'boolean') {
    throw invalidArgument('attemptMade must be a boolean when given', { field: 'attemptMade' });
  }
  if (request.attempt !== undefined && request.attemptMade !== true) {
    // Un-counted, the claim's number is the previous claim's: the attempt would be filed under it.
    throw invalidArgument('attempt goes with attemptMade: a park that made no attempt records none', {
      event_id: request.eventId,
      field: 'attempt',
    });
  }
  if (typeof request.body !== 'string' || request.body.length === 0) {
    throw invalidArgument('body must be the envelope body, a non-empty string', { field: 'body' });
  }
  if (
    request.body.includes('\u0000') ||
    !(request.body as unknown as { isWellFormed(): boolean }).isWellFormed()
  ) {
    // What PostgreSQL's TEXT cannot hold, or UTF-8 would change: the body must come back byte for byte.
    throw invalidArgument('body must be well-formed text without NUL', { field: 'body' });
  }
  if (Buffer.byteLength(request.body, 'utf8') > MAX_PARKED_BODY_BYTES) {
    throw invalidArgument(`body is longer than ${MAX_PARKED_BODY_BYTES} bytes`, { field: 'body' });
  }
}

export function checkListParked(request: ListParkedRequest): void {
  checkRequest(request, 'listParked');
  checkDestinationId(request.destinationId);
  checkLimit(request.limit);
  const { after } = request;
  if (after === undefined) return;
  checkRequest(after, 'listParked after');
  checkEventId(after.eventId, 'after.eventId');
  if (!(Number.isSafeInteger(after.dueAt) && after.dueAt >= 0 && after.dueAt <= MAX_EPOCH_MS)) {
    throw invalidArgument('after.dueAt must be whole epoch milliseconds', { field: 'after.dueAt' });
  }
}

export function checkListDestinations(request: ListDestinationsRequest): { limit: number; after?: string } {
  checkRequest(request, 'list destinations');
  const limit = request.limit ?? 100;
  checkLimit(limit);
  if (request.after !== undefined) checkDestinationId(request.after, 'after');
  return { limit, ...(request.after === undefined ? {} : { after: request.after }) };
}

export function checkUnpark(entries: readonly Pick<ParkedEvent, 'eventId' | 'parkCount'>[]): void {
  if (!Array.isArray(entries))
    throw invalidArgument('unpark takes a list of parked events', { field: 'entries' });
  if (entries.length > MAX_BATCH_ENTRIES) {
    throw invalidArgument(`unpark takes at most ${MAX_BATCH_ENTRIES} entries`, { field: 'entries' });
  }
  for (const entry of entries) {
    checkRequest(entry, 'unpark');
    checkEventId(entry.eventId);
    if (!Number.isSafeInteger(entry.parkCount) || entry.parkCount < 1) {
      throw invalidArgument('parkCount must be the count listParked returned', { field: 'parkCount' });
    }
  }
}
