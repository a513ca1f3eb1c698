import type { AttemptLog } from '../attempts/attempt-log';
import type { LedgerWithDestinations } from '../destinations/destination-state';
import { PostgresLedger, type PostgresLedgerOptions } from './postgres-ledger';

export type { PostgresLedgerOptions } from './postgres-ledger';

/** Opens the ledger in a PostgreSQL schema, creating and migrating it as needed. */
export function openPostgresLedger(
  options: PostgresLedgerOptions = {},
): Promise<LedgerWithDestinations & AttemptLog> {
  return PostgresLedger.open(options);
}
