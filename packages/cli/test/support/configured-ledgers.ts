import type { Clock } from '@queueport/core';
import type { AttemptLog, LedgerWithDestinations } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { inject } from 'vitest';
import { freshDatabase } from './postgres-database';

/** A ledger as the configuration names it, and the same ledger as the application opens it. */
export interface ConfiguredLedger {
  /** The configuration's `ledger`. */
  config: object;
  /** The environment the CLI runs in, for what `config` names there. */
  env: Record<string, string>;
  /** `clock`: to write rows at other times than now (the CLI's own ledger runs on the system clock). */
  open(clock?: Clock): Promise<LedgerWithDestinations & AttemptLog>;
  /** Removes what the setup made on a server; a SQLite file goes with the project's folder. */
  drop(): Promise<void>;
}

/** Makes a ledger for a project, `file` naming a file in its folder. */
export type LedgerSetup = (file: (name: string) => string) => Promise<ConfiguredLedger>;

export const SQLITE_LEDGER: LedgerSetup = async (file) => ({
  config: { sqlite: 'ledger.db' },
  env: {},
  open: (clock) => openSqliteLedger({ filename: file('ledger.db'), ...(clock ? { clock } : {}) }),
  drop: async () => {},
});

export const POSTGRES_LEDGER: LedgerSetup = async () => {
  const database = await freshDatabase(inject('queueportServices').postgresUrl);
  return {
    config: { postgresUrlEnv: 'QUEUEPORT_LEDGER_URL' },
    env: { QUEUEPORT_LEDGER_URL: database.url },
    open: (clock) => openPostgresLedger({ connectionString: database.url, ...(clock ? { clock } : {}) }),
    drop: database.drop,
  };
};

/** Both stores, by name, for `describe.each`. */
export const CONFIGURED_LEDGERS: [string, LedgerSetup][] = [
  ['SQLite', SQLITE_LEDGER],
  ['PostgreSQL', POSTGRES_LEDGER],
];
