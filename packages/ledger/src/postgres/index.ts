import type { Ledger } from '../ledger';
import { PostgresLedger, type PostgresLedgerOptions } from './postgres-ledger';

export type { PostgresLedgerOptions } from './postgres-ledger';

/** Opens the ledger in a PostgreSQL schema, creating and migrating it as needed. */
export function openPostgresLedger(options: PostgresLedgerOptions = {}): Promise<Ledger> {
  return PostgresLedger.open(options);
}
