import pg from 'pg';
import { withDeadline } from './deadline';
import { ensureLocalService } from './ensure-local-service';
import { messageOf } from './errors';
import { LOCALHOST } from './ports';
import { startPostgresCluster } from './postgres-cluster';
import type { Ensured, Log } from './types';

/**
 * Logs in with the URL's role on the URL's database and runs a query, the way the tests will:
 * an open port alone could be anything, and a server that refuses the URL is of no use.
 */
export async function postgresUsable(url: string, timeoutMs = 3000): Promise<void> {
  let client: pg.Client | undefined;
  try {
    const db = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
    client = db;
    // A socket error after connect() settled would otherwise be thrown as an unhandled event.
    db.on('error', () => {});
    const check = async () => {
      await db.connect();
      await db.query('SELECT 1');
    };
    await withDeadline('PostgreSQL', timeoutMs, check(), () => void db.end().catch(() => {}));
  } catch (error) {
    // pg's own words for a server that stays silent, and for a password we do not have.
    let why = messageOf(error).replace(/^timeout expired$/, `no answer within ${timeoutMs} ms`);
    if (!client) throw new Error(`invalid PostgreSQL URL: ${why}`);
    if (!client.password && /password/i.test(why)) why += ' (the URL has no password)';
    // A fresh error: pg's may carry the connection parameters, password included.
    throw new Error(`could not log in as ${client.user} to database ${client.database}: ${why}`);
  } finally {
    await client?.end().catch(() => {});
  }
}

export interface PostgresOptions {
  /** QUEUEPORT_POSTGRES_URL: use exactly this server, never start one. */
  override?: string;
  /** Port of an already running PostgreSQL to try first; undefined skips the try. */
  probePort?: number;
  log: Log;
}

export function ensurePostgres(options: PostgresOptions): Promise<Ensured> {
  return ensureLocalService({
    label: 'PostgreSQL',
    envName: 'QUEUEPORT_POSTGRES_URL',
    ...(options.override ? { override: options.override } : {}),
    // These machines run PostgreSQL with trust auth for `postgres` and a database `test`.
    ...(options.probePort === undefined
      ? {}
      : { probeUrl: `postgres://postgres@${LOCALHOST}:${options.probePort}/test` }),
    usable: postgresUsable,
    start: () => startPostgresCluster(options.log),
  });
}
