import { ATTEMPTS_TABLE, insertAttemptStatement } from '../attempts/attempt-statements';
import { LEDGER_COLUMNS } from '../record';
import { SETTLE_GUARD_SQL } from '../settlement';
import { DESTINATIONS_TABLE, PARKED_EVENTS_TABLE, siblingTable } from './migrations';

/**
 * The store's statements, in SQL both SQLite and PostgreSQL accept, with `:name` parameters
 * (`compileNamed`). `ledgerTable` is the ledger's own table, quoted and qualified as the store
 * does; the destination tables sit beside it.
 */
export function destinationStatements(ledgerTable: string) {
  const destinations = siblingTable(ledgerTable, DESTINATIONS_TABLE);
  const parked = siblingTable(ledgerTable, PARKED_EVENTS_TABLE);
  const state =
    'SELECT d.destination_id, d.disabled, d.reason, d.disabled_at, d.enabled_at, d.updated_at, ' +
    `(SELECT count(*) FROM ${parked} p WHERE p.destination_id = d.destination_id) AS parked FROM ${destinations} d`;
  const parkedColumns =
    'p.event_id, p.destination_id, p.due_at, p.parked_at, p.park_count, p.body, e.state AS ledger_state';
  const parkedFrom = `${parked} p LEFT JOIN ${ledgerTable} e ON e.event_id = p.event_id`;
  return {
    get: `${state} WHERE d.destination_id = :destination_id`,
    list: `${state} ORDER BY d.destination_id LIMIT :limit`,
    listAfter: `${state} WHERE d.destination_id > :after ORDER BY d.destination_id LIMIT :limit`,
    disabledIds: `SELECT destination_id FROM ${destinations} WHERE disabled ORDER BY destination_id`,
    /** Nothing returned: it was disabled already (and keeps its first reason). */
    disable:
      `INSERT INTO ${destinations} AS d (destination_id, disabled, reason, disabled_at, enabled_at, updated_at) ` +
      'VALUES (:destination_id, :yes, :reason, :now, NULL, :now) ' +
      'ON CONFLICT (destination_id) DO UPDATE SET disabled = :yes, reason = :reason, disabled_at = :now, updated_at = :now ' +
      'WHERE NOT d.disabled RETURNING destination_id',
    enable:
      `UPDATE ${destinations} SET disabled = :no, enabled_at = :now, updated_at = :now ` +
      'WHERE destination_id = :destination_id AND disabled RETURNING destination_id',
    isDisabled: `SELECT disabled FROM ${destinations} WHERE destination_id = :destination_id`,
    /** The settle guard, so only the lease's owner parks; the lease and any retry time are cleared. */
    parkLedgerRow:
      `UPDATE ${ledgerTable} SET lease_owner = NULL, lease_until = NULL, attempts = attempts - :uncount, ` +
      'last_outcome = :last_outcome, retry_at = NULL, updated_at = :now, ambiguous = (ambiguous OR :ambiguous) ' +
      `WHERE event_id = :event_id AND ${SETTLE_GUARD_SQL} AND attempts >= :uncount RETURNING ${LEDGER_COLUMNS.join(', ')}`,
    /** A repeat keeps the event's due time, so it keeps its place in the order a resume follows. */
    parkBody:
      `INSERT INTO ${parked} AS p (event_id, destination_id, due_at, parked_at, park_count, body) ` +
      'VALUES (:event_id, :destination_id, :due_at, :now, 1, :body) ' +
      'ON CONFLICT (event_id) DO UPDATE SET destination_id = excluded.destination_id, ' +
      'parked_at = excluded.parked_at, park_count = p.park_count + 1, body = excluded.body',
    /** The attempt log's own insert, so a park's attempt is a row like a settle's. */
    parkAttempt: insertAttemptStatement(siblingTable(ledgerTable, ATTEMPTS_TABLE)),
    listParked: `SELECT ${parkedColumns} FROM ${parkedFrom} WHERE p.destination_id = :destination_id ORDER BY p.due_at, p.event_id LIMIT :limit`,
    listParkedAfter:
      `SELECT ${parkedColumns} FROM ${parkedFrom} WHERE p.destination_id = :destination_id ` +
      'AND (p.due_at, p.event_id) > (:after_due_at, :after_event_id) ORDER BY p.due_at, p.event_id LIMIT :limit',
    unpark: `DELETE FROM ${parked} WHERE event_id = :event_id AND park_count = :park_count`,
  };
}

export type DestinationStatementKey = keyof ReturnType<typeof destinationStatements>;
