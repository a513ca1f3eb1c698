import { LEDGER_COLUMNS } from '../record';

/**
 * The multi-row statements of group commit, PostgreSQL only: arrays bound as parameters and
 * unnested, so a batch of any size is one prepared statement.
 */

/**
 * The claims of ids never seen: every fresh row is 'processing', attempt 1, stamped `now` ($5).
 * Returns the ids it inserted; an id that exists already is left to the locked path.
 */
export function batchClaimInsert(table: string): string {
  return (
    `INSERT INTO ${table} (${LEDGER_COLUMNS.join(', ')}) ` +
    `SELECT v.event_id, v.payload_sha256, 'processing', 1, v.lease_owner, v.lease_until, NULL, FALSE, NULL, NULL, $5, $5 ` +
    'FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS v(event_id, payload_sha256, lease_owner, lease_until) ' +
    'ON CONFLICT (event_id) DO NOTHING RETURNING event_id'
  );
}

/**
 * The settle rule of settlement.ts for many rows at once: only while processing and held by the
 * entry's owner; the lease cleared; ambiguous set, never cleared. Ids must be distinct. It is the
 * body of migration 2's function, which pins its plan to the primary key.
 *
 * The state test is written `IS NOT DISTINCT FROM` (the same for a NOT NULL column) so that it
 * does not match the pending index's predicate: with `state = 'processing'` the planner reads
 * every processing entry of that partial index, dead ones included, and joins them with the batch.
 */
export function batchSettleUpdate(table: string, returning: string): string {
  return (
    `UPDATE ${table} AS t SET state = v.state, last_outcome = v.last_outcome, lease_owner = NULL, lease_until = NULL, ` +
    'delivered_at = v.delivered_at, retry_at = v.retry_at, updated_at = $8, ambiguous = (t.ambiguous OR v.ambiguous) ' +
    'FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::boolean[]) ' +
    'AS v(event_id, owner, state, last_outcome, delivered_at, retry_at, ambiguous) ' +
    `WHERE t.event_id = v.event_id AND t.state IS NOT DISTINCT FROM 'processing' AND t.lease_owner = v.owner RETURNING ${returning}`
  );
}

/** The call of migration 2's batch settle, its parameters those of `batchSettleUpdate`. */
export function batchSettleCall(schema: string, functionName: string): string {
  return `SELECT ${LEDGER_COLUMNS.join(', ')} FROM ${schema}.${functionName}($1, $2, $3, $4, $5, $6, $7, $8)`;
}
