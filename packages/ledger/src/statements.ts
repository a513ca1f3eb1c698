import { notParkedWhileDisabled } from './destinations/migrations';
import { LEDGER_COLUMNS } from './record';
import { SETTLE_GUARD_SQL } from './settlement';

/** Where the ledger keeps its rows (the migrations create it). */
export const LEDGER_TABLE = 'ledger_events';

/**
 * Every statement the stores run, in SQL both SQLite (≥ 3.35, for RETURNING) and PostgreSQL
 * accept, with `:name` parameters (see `compileNamed`). `table` is already quoted/qualified.
 * The predicates `state = 'processing'`, `state <> 'processing'` and `ambiguous` are literals so
 * both planners can use the partial indexes the migrations create.
 */
export function ledgerStatements(table: string) {
  const columns = LEDGER_COLUMNS.join(', ');
  const values = LEDGER_COLUMNS.map((column) => `:${column}`).join(', ');
  const assignments = LEDGER_COLUMNS.filter((column) => column !== 'event_id')
    .map((column) => `${column} = :${column}`)
    .join(', ');
  const select = `SELECT ${columns} FROM ${table}`;
  // A parked event is not stuck while its destination is disabled.
  const notParked = notParkedWhileDisabled(table);
  return {
    /**
     * The claim of an id never seen: one statement; no row changed means the id exists. Nothing
     * is returned: the caller wrote the row and has it already.
     */
    insertNew: `INSERT INTO ${table} (${columns}) VALUES (${values}) ON CONFLICT (event_id) DO NOTHING`,
    get: `${select} WHERE event_id = :event_id`,
    /** Writes back a record `decideClaim` produced. */
    write: `UPDATE ${table} SET ${assignments} WHERE event_id = :event_id`,
    settle:
      `UPDATE ${table} SET state = :state, last_outcome = :last_outcome, lease_owner = NULL, lease_until = NULL, ` +
      `delivered_at = :delivered_at, retry_at = :retry_at, updated_at = :updated_at, ` +
      // Once ambiguous, always: a settle can set the flag, never clear it.
      `ambiguous = (ambiguous OR :ambiguous) ` +
      `WHERE event_id = :event_id AND ${SETTLE_GUARD_SQL} RETURNING ${columns}`,
    /**
     * Oldest first means by creation, then id. The cursor is the last id of the previous page;
     * its creation time never changes, so a row claimed or settled between pages cannot make the
     * scan skip others. Should the cursor row be gone (pruned), the scan starts over rather than
     * skip anything: reconciliation republishing an event twice is absorbed by the ledger.
     */
    scanPending: `${select} WHERE state = 'processing' AND updated_at < :cutoff AND ${notParked} ORDER BY created_at, event_id LIMIT :limit`,
    scanPendingAfter:
      `${select} WHERE state = 'processing' AND updated_at < :cutoff AND ${notParked} ` +
      `AND (created_at, event_id) > (COALESCE((SELECT created_at FROM ${table} WHERE event_id = :after), -1), :after) ` +
      `ORDER BY created_at, event_id LIMIT :limit`,
    scanAmbiguous: `${select} WHERE ambiguous ORDER BY event_id LIMIT :limit`,
    scanAmbiguousAfter: `${select} WHERE ambiguous AND event_id > :after ORDER BY event_id LIMIT :limit`,
    /** Every row by id, for `list`; the primary key orders it, so a page is an index range. */
    list: `${select} ORDER BY event_id LIMIT :limit`,
    listAfter: `${select} WHERE event_id > :after ORDER BY event_id LIMIT :limit`,
    listState: `${select} WHERE state = :state ORDER BY event_id LIMIT :limit`,
    listStateAfter: `${select} WHERE state = :state AND event_id > :after ORDER BY event_id LIMIT :limit`,
  };
}

/** The `list` statement for a request: with or without a state, from the start or after a cursor. */
export function listStatementKey(request: { after?: string; state?: string }): LedgerStatementKey {
  if (request.state === undefined) return request.after === undefined ? 'list' : 'listAfter';
  return request.after === undefined ? 'listState' : 'listStateAfter';
}

export type LedgerStatementKey = keyof ReturnType<typeof ledgerStatements>;

/** Rows one prune statement deletes at most. */
export const PRUNE_BATCH = 5000;
