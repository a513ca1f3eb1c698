import type { LedgerRecord, LedgerState } from './ledger';

/**
 * A ledger row as either driver returns it: SQLite gives integers and 0/1, PostgreSQL gives
 * BIGINT as strings and real booleans. There is no payload column: only the digest and metadata.
 */
export interface LedgerRow {
  event_id: string;
  payload_sha256: string;
  state: string;
  attempts: number | string;
  lease_owner: string | null;
  lease_until: number | string | bigint | null;
  last_outcome: string | null;
  ambiguous: boolean | number;
  delivered_at: number | string | bigint | null;
  retry_at: number | string | bigint | null;
  created_at: number | string | bigint;
  updated_at: number | string | bigint;
}

/** Every column, in table order. Statements and migrations both list them from here. */
export const LEDGER_COLUMNS = [
  'event_id',
  'payload_sha256',
  'state',
  'attempts',
  'lease_owner',
  'lease_until',
  'last_outcome',
  'ambiguous',
  'delivered_at',
  'retry_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof LedgerRow)[];

export type SqlValue = string | number | boolean | null;
export type RowParams = Record<(typeof LEDGER_COLUMNS)[number], SqlValue>;

const STATES: readonly LedgerState[] = ['processing', 'delivered', 'failed'];

export function recordFromRow(row: LedgerRow): LedgerRecord {
  if (!STATES.includes(row.state as LedgerState)) {
    throw new Error(
      `ledger row ${JSON.stringify(row.event_id)} has an unknown state ${JSON.stringify(row.state)}`,
    );
  }
  return {
    eventId: row.event_id,
    payloadSha256: row.payload_sha256,
    state: row.state as LedgerState,
    attempts: Number(row.attempts),
    leaseOwner: row.lease_owner,
    leaseUntil: toMillisOrNull(row.lease_until),
    lastOutcome: row.last_outcome,
    ambiguous: row.ambiguous === true || row.ambiguous === 1,
    deliveredAt: toMillisOrNull(row.delivered_at),
    retryAt: toMillisOrNull(row.retry_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function recordToParams(record: LedgerRecord): RowParams {
  return {
    event_id: record.eventId,
    payload_sha256: record.payloadSha256,
    state: record.state,
    attempts: record.attempts,
    lease_owner: record.leaseOwner,
    lease_until: record.leaseUntil,
    last_outcome: record.lastOutcome,
    ambiguous: record.ambiguous,
    delivered_at: record.deliveredAt,
    retry_at: record.retryAt,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

function toMillisOrNull(value: number | string | bigint | null): number | null {
  return value === null ? null : Number(value);
}
