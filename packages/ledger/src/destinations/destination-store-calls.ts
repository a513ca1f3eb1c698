import { attemptParams } from '../attempts/attempt-row';
import { leaseLost } from '../errors';
import type { LedgerRecord } from '../ledger';
import { type LedgerRow, recordFromRow, type SqlValue } from '../record';
import { outcomeOf } from '../validation';
import type {
  DestinationState,
  DisableRequest,
  ListDestinationsRequest,
  ListParkedRequest,
  ParkedEvent,
  ParkRequest,
} from './destination-state';
import type { DestinationStatementKey } from './destination-statements';
import {
  checkDestinationId,
  checkDisable,
  checkListDestinations,
  checkListParked,
  checkPark,
} from './destination-validation';

/**
 * The half of each destination store call that does not depend on the database: the request
 * checked and turned into the statements it runs, and their rows turned into the call's result.
 * Both stores run the same statements (destination-statements.ts) and differ only in how they run
 * them and hold their transactions, so a rule about what a call writes changes here, once.
 *
 * A call that writes a timestamp is built in two steps: checked before the store opens its
 * transaction, and given `now` inside it, so a write that waited for a lock is stamped when it ran.
 */

/** One statement to run and the values of its `:name` parameters. */
export interface StatementCall {
  key: DestinationStatementKey;
  params: Readonly<Record<string, SqlValue>>;
}

/** Unchecked: for an id the store has checked already. */
export function stateCall(destinationId: string): StatementCall {
  return { key: 'get', params: { destination_id: destinationId } };
}

export function listCall(request: ListDestinationsRequest): StatementCall {
  const { limit, after } = checkListDestinations(request);
  return { key: after === undefined ? 'list' : 'listAfter', params: { limit, after: after ?? null } };
}

export function listParkedCall(request: ListParkedRequest): StatementCall {
  checkListParked(request);
  const { after } = request;
  return {
    key: after === undefined ? 'listParked' : 'listParkedAfter',
    params: {
      destination_id: request.destinationId,
      limit: request.limit,
      after_due_at: after?.dueAt ?? null,
      after_event_id: after?.eventId ?? null,
    },
  };
}

/**
 * A disable or an enable of one destination: its statement returns the row only when it changed
 * it (the destination was not so already), and the call's result is the state read after it.
 */
export interface StateChangeCall {
  destinationId: string;
  at(now: number): StatementCall;
}

export function disableCall(request: DisableRequest): StateChangeCall {
  checkDisable(request);
  const { destinationId } = request;
  const reason = outcomeOf(request.reason);
  return {
    destinationId,
    at: (now) => ({ key: 'disable', params: { destination_id: destinationId, reason, yes: true, now } }),
  };
}

export function enableCall(destinationId: string): StateChangeCall {
  checkDestinationId(destinationId);
  return {
    destinationId,
    at: (now) => ({ key: 'enable', params: { destination_id: destinationId, no: false, now } }),
  };
}

/**
 * A park, once the store has found the destination disabled: first the ledger row (which only
 * the lease's owner's park matches), then, given the row it returned, the writes that follow in
 * the same transaction and the result. No row means the lease is lost: the store rolls back.
 */
export interface ParkCalls {
  ledgerRow(now: number): StatementCall;
  afterLedgerRow(
    row: LedgerRow | undefined,
    now: number,
  ): { writes: StatementCall[]; result: { status: 'parked'; record: LedgerRecord } };
}

export function parkCalls(request: ParkRequest): ParkCalls {
  checkPark(request);
  const { eventId, destinationId } = request;
  return {
    ledgerRow: (now) => ({
      key: 'parkLedgerRow',
      params: {
        event_id: eventId,
        owner: request.owner,
        uncount: request.attemptMade === true ? 0 : 1,
        last_outcome: outcomeOf(parkedOutcome(destinationId, request.outcome)),
        ambiguous: request.ambiguous === true,
        now,
      },
    }),
    afterLedgerRow: (row, now) => {
      if (!row) throw leaseLost(eventId);
      const record = recordFromRow(row);
      const writes: StatementCall[] = [
        {
          key: 'parkBody',
          params: {
            event_id: eventId,
            destination_id: destinationId,
            due_at: record.createdAt,
            now,
            body: request.body,
          },
        },
      ];
      if (request.attempt) {
        writes.push({
          key: 'parkAttempt',
          params: {
            event_id: eventId,
            // Counted (checkPark holds `attempt` to `attemptMade`): the row's count is this claim's number.
            attempt: record.attempts,
            // A release's outcome, 'retry': a parked event goes out again when its destination is resumed.
            ...attemptParams('release', request.attempt, request.ambiguous === true),
          },
        });
      }
      return { writes, result: { status: 'parked', record } };
    },
  };
}

/** The note a park leaves as the row's outcome (after the attempt's own, when one was made). */
export function parkedOutcome(destinationId: string, attemptOutcome: string | undefined): string {
  const note = `parked: destination ${destinationId} disabled`;
  return attemptOutcome ? `${attemptOutcome}; ${note}` : note;
}

/** A state row as either driver returns it (SQLite: integers and 0/1; PostgreSQL: BIGINT strings). */
export interface DestinationRow {
  destination_id: string;
  disabled: boolean | number;
  reason: string | null;
  disabled_at: number | string | null;
  enabled_at: number | string | null;
  updated_at: number | string;
  parked: number | string;
}

export interface ParkedRow {
  event_id: string;
  destination_id: string;
  due_at: number | string;
  parked_at: number | string;
  park_count: number | string;
  body: string;
  ledger_state: string | null;
}

export function stateFromRow(row: DestinationRow): DestinationState {
  return {
    destinationId: row.destination_id,
    disabled: row.disabled === true || row.disabled === 1,
    reason: row.reason,
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    enabledAt: row.enabled_at === null ? null : Number(row.enabled_at),
    updatedAt: Number(row.updated_at),
    parked: Number(row.parked),
  };
}

export function parkedFromRow(row: ParkedRow): ParkedEvent {
  return {
    eventId: row.event_id,
    destinationId: row.destination_id,
    dueAt: Number(row.due_at),
    parkedAt: Number(row.parked_at),
    parkCount: Number(row.park_count),
    body: row.body,
    ledgerState: row.ledger_state as ParkedEvent['ledgerState'],
  };
}
