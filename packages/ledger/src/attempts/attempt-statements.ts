import { PARKED_EVENTS_TABLE, siblingTable } from '../destinations/migrations';
import { ATTEMPT_COLUMNS } from './attempt-row';

/** Where the attempt log keeps its rows (migrations: SQLite 2, PostgreSQL 3). */
export const ATTEMPTS_TABLE = 'ledger_attempts';

/**
 * The attempt log's statements in SQL both SQLite and PostgreSQL accept, `:name` parameters as in
 * statements.ts. `attempts` and `events` are already quoted/qualified; `rowId` is the dialect's
 * name for a row's physical id.
 */
export function attemptStatements(attempts: string, events: string, rowId: 'rowid' | 'ctid') {
  const columns = ATTEMPT_COLUMNS.join(', ');
  return {
    insertAttempt: insertAttemptStatement(attempts),
    /** The primary key orders it: one event's attempts are one index range. */
    listAttempts:
      `SELECT ${columns} FROM ${attempts} WHERE event_id = :event_id AND attempt >= :from_attempt ` +
      'ORDER BY attempt LIMIT :limit',
    /**
     * Retention by age, in batches like prune: each its own short transaction. The batch is named
     * by physical row id (`rowId`: SQLite's rowid, PostgreSQL's ctid), so each delete goes
     * straight to its rows; by primary key, PostgreSQL's generic plan joined the batch against a
     * scan of the whole table, once per batch. Oldest first, so the batch is read from the
     * started_at index whatever the plan guesses about the cutoff.
     */
    pruneAttemptsBatch:
      `DELETE FROM ${attempts} WHERE ${rowId} IN ` +
      `(SELECT ${rowId} FROM ${attempts} WHERE started_at < :cutoff ORDER BY started_at LIMIT :batch)`,
    /**
     * The terminal rows prune deletes, named, so their attempts go with them in the same
     * transaction. A row whose event is still parked stays, however old: the row can be settled
     * while its parked copy waits (a redelivery or reconciliation delivered it, a resume stopped
     * before unparking), and without the row a resume would take the copy for undelivered and
     * send it again.
     */
    pruneEventsReturning:
      `DELETE FROM ${events} WHERE event_id IN ` +
      `(SELECT event_id FROM ${events} WHERE state <> 'processing' AND updated_at < :cutoff ` +
      `AND NOT EXISTS (SELECT 1 FROM ${siblingTable(events, PARKED_EVENTS_TABLE)} p WHERE p.event_id = ${events}.event_id) ` +
      'LIMIT :batch) RETURNING event_id',
    deleteEventAttempts: `DELETE FROM ${attempts} WHERE event_id = :event_id`,
  };
}

/**
 * Run right after the settle (or park) that returned the row, in its transaction. A claim number
 * is ended once (both clear the lease), so a conflict can only be the same attempt recorded
 * again; the first record stands rather than fail a settle that already happened. Its own
 * function because the destination store records a park's attempt with it too.
 */
export function insertAttemptStatement(attempts: string): string {
  return (
    `INSERT INTO ${attempts} (${ATTEMPT_COLUMNS.join(', ')}) ` +
    `VALUES (${ATTEMPT_COLUMNS.map((column) => `:${column}`).join(', ')}) ON CONFLICT (event_id, attempt) DO NOTHING`
  );
}

export type AttemptStatementKey = keyof ReturnType<typeof attemptStatements>;
