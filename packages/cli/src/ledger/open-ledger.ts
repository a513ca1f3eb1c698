import path from 'node:path';
import type { Ledger } from '@queueport/ledger';
import type { Env } from '../config/config-env';
import type { LoadedConfig } from '../config/config-types';
import { ConfigError } from '../errors';
import { isModuleNotFound } from '../module-not-found';

/**
 * The configured ledger. Each store is imported only when used, and loads its database client
 * on open, so a SQLite user never loads pg and a PostgreSQL user never needs better-sqlite3.
 */
export async function openConfiguredLedger(loaded: LoadedConfig, env: Env, cwd: string): Promise<Ledger> {
  const { ledger } = loaded.config;
  if (!ledger) {
    throw new ConfigError(
      'no ledger is configured: add "ledger": { "sqlite": "ledger.db" } or { "postgresUrlEnv": "DATABASE_URL" }',
      loaded.file,
      'ledger',
    );
  }
  if ('sqlite' in ledger) {
    const filename = path.resolve(loaded.file ? path.dirname(loaded.file) : cwd, ledger.sqlite);
    const { openSqliteLedger } = await import('@queueport/ledger/sqlite');
    return withClient('better-sqlite3', loaded, 'ledger.sqlite', () => openSqliteLedger({ filename }));
  }
  const connectionString = env[ledger.postgresUrlEnv];
  if (!connectionString) {
    throw new ConfigError(
      `names the environment variable ${ledger.postgresUrlEnv}, which is not set`,
      loaded.file,
      'ledger.postgresUrlEnv',
    );
  }
  const { openPostgresLedger } = await import('@queueport/ledger/postgres');
  return withClient('pg', loaded, 'ledger.postgresUrlEnv', () => openPostgresLedger({ connectionString }));
}

async function withClient(
  client: string,
  loaded: LoadedConfig,
  field: string,
  open: () => Promise<Ledger>,
): Promise<Ledger> {
  try {
    return await open();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new ConfigError(
      `this ledger needs ${client}, which is not installed: npm i ${client}`,
      loaded.file,
      field,
    );
  }
}
