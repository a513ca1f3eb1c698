import { QueueError } from '@queueport/core';

/** The errors the ledger raises itself. Details name the event, never a payload or digest. */

export function invalidArgument(
  message: string,
  details: Readonly<Record<string, unknown>> = {},
): QueueError {
  return new QueueError('INVALID_ARGUMENT', `ledger: ${message}`, { details });
}

export function idempotencyConflict(eventId: string): QueueError {
  return new QueueError(
    'IDEMPOTENCY_CONFLICT',
    'ledger: this event id was claimed with a different payload digest; a changed payload is never a retry',
    { details: { event_id: eventId } },
  );
}

export function leaseLost(eventId: string): QueueError {
  return new QueueError(
    'LEASE_LOST',
    'ledger: the lease is not held by this owner (another worker re-took it, or the event is settled)',
    { details: { event_id: eventId } },
  );
}

export function ledgerClosed(): QueueError {
  return new QueueError('CLOSED', 'ledger: closed');
}
