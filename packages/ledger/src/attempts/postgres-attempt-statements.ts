import { LEDGER_COLUMNS } from '../record';
import { ledgerStatements } from '../statements';
import { ATTEMPT_COLUMNS, ATTEMPT_INPUT_COLUMNS } from './attempt-row';
import { attemptStatements } from './attempt-statements';

/**
 * PostgreSQL only: a settle and its attempt as one statement (data-modifying CTEs), so recording
 * an attempt adds no round trip, and a settle that lost its lease (no row returned) inserts none.
 */

/** The single settle of statements.ts, with its attempt. */
export function settleWithAttempt(events: string, attempts: string): string {
  const columns = LEDGER_COLUMNS.join(', ');
  // Casts: a parameter in an INSERT … SELECT list takes no type from the column it fills.
  const types: Readonly<Record<(typeof ATTEMPT_INPUT_COLUMNS)[number], string>> = {
    started_at: 'bigint',
    duration_ms: 'bigint',
    outcome: 'text',
    status_code: 'integer',
    error_class: 'text',
    ambiguous: 'boolean',
    response_sample: 'text',
    response_truncated: 'boolean',
    destination_id: 'text',
  };
  const values = ATTEMPT_INPUT_COLUMNS.map((column) => `:${column}::${types[column]}`).join(', ');
  return (
    `WITH settled AS (${ledgerStatements(events).settle}), ` +
    `recorded AS (INSERT INTO ${attempts} (${ATTEMPT_COLUMNS.join(', ')}) ` +
    `SELECT event_id, attempts, ${values} FROM settled ON CONFLICT (event_id, attempt) DO NOTHING) ` +
    `SELECT ${columns} FROM settled`
  );
}

/** One prune batch of terminal rows and, in the same statement, their attempts. */
export function pruneWithAttempts(events: string, attempts: string): string {
  return (
    `WITH gone AS (${attemptStatements(attempts, events, 'ctid').pruneEventsReturning}), ` +
    // An array, so the attempts are found through their primary key, one range per event.
    `dropped AS (DELETE FROM ${attempts} WHERE event_id = ANY (ARRAY(SELECT event_id FROM gone))) ` +
    'SELECT count(*)::int AS deleted FROM gone'
  );
}

/**
 * The call of migration 3's batch settle: migration 2's eight parameters, then one array per
 * attempt column, an entry without an attempt NULL in `outcome` ($11).
 */
export function batchSettleWithAttemptsCall(schema: string, functionName: string): string {
  const params = Array.from({ length: 16 }, (_, index) => `$${index + 1}`).join(', ');
  return `SELECT ${LEDGER_COLUMNS.join(', ')} FROM ${schema}.${functionName}(${params})`;
}
