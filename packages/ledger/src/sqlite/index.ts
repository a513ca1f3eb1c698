import type { Ledger } from '../ledger';
import { SqliteLedger, type SqliteLedgerOptions } from './sqlite-ledger';

export type { SqliteLedgerOptions } from './sqlite-ledger';
export { temporarySqliteLedger } from './temporary-sqlite-ledger';

/** Opens (creating and migrating as needed) the ledger in one SQLite file, in WAL mode. */
export function openSqliteLedger(options: SqliteLedgerOptions): Promise<Ledger> {
  return SqliteLedger.open(options);
}
