import type { AttemptLog } from '../attempts/attempt-log';
import type { LedgerWithDestinations } from '../destinations/destination-state';
import { SqliteLedger, type SqliteLedgerOptions } from './sqlite-ledger';

export type { SqliteLedgerOptions } from './sqlite-ledger';
export { temporarySqliteLedger } from './temporary-sqlite-ledger';

/** Opens (creating and migrating as needed) the ledger in one SQLite file, in WAL mode. */
export function openSqliteLedger(options: SqliteLedgerOptions): Promise<LedgerWithDestinations & AttemptLog> {
  return SqliteLedger.open(options);
}
