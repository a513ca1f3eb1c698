import type { Ledger } from './ledger';
import { PostgresLedger, type PostgresLedgerOptions } from './postgres/postgres-ledger';
import { SqliteLedger, type SqliteLedgerOptions } from './sqlite/sqlite-ledger';

export type {
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerRecord,
  LedgerState,
  ReleaseRequest,
  ScanRequest,
  SettleRequest,
} from './ledger';
export type { PostgresLedgerOptions } from './postgres/postgres-ledger';
export type { SqliteLedgerOptions } from './sqlite/sqlite-ledger';
export { MAX_OUTCOME_CHARS, MAX_SCAN_LIMIT } from './validation';

/** Opens (creating and migrating as needed) the ledger in one SQLite file, in WAL mode. */
export function openSqliteLedger(options: SqliteLedgerOptions): Promise<Ledger> {
  return SqliteLedger.open(options);
}

/** Opens the ledger in a PostgreSQL schema, creating and migrating it as needed. */
export function openPostgresLedger(options: PostgresLedgerOptions = {}): Promise<Ledger> {
  return PostgresLedger.open(options);
}
