import { importWithPeers } from '@queueport/core/driver';
import type { ClientConfig, Pool } from 'pg';
import type { ParsedPostgresUrl } from './postgres-url';

/**
 * Every connection of one driver: bounded on both sides (the server cancels a statement past
 * `statement_timeout`, the client gives up past `query_timeout`, a pooled connection is waited
 * for at most as long), tagged with an `application_name` so its backends can be found.
 */
export function connectionConfig(parsed: ParsedPostgresUrl, applicationName: string): ClientConfig {
  const { host, port, database, user, password, timeoutMs } = parsed;
  return {
    ...{ host, port, database, user, application_name: applicationName, keepAlive: true },
    ...(password === undefined ? {} : { password }),
    // The certificate is checked against the host the URL names.
    ...(parsed.tls ? { ssl: { servername: host } } : {}),
    ...{ connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs, query_timeout: timeoutMs },
    idle_in_transaction_session_timeout: timeoutMs,
  };
}

/** pg, loaded at the first open: the adapter's definition reads without it, and a missing one names the install line. */
export async function loadPg(): Promise<typeof import('pg').default> {
  const adapter = { scheme: 'pgqueue', packageName: '@queueport/postgres', peers: ['pg'] };
  return (await importWithPeers(adapter, () => import('pg'))).default;
}

export async function openPool(parsed: ParsedPostgresUrl, applicationName: string): Promise<Pool> {
  const pool = new (await loadPg()).Pool({
    ...connectionConfig(parsed, applicationName),
    max: parsed.poolMax,
  });
  // An idle client whose backend died must not crash the process: the pool drops it and opens another.
  pool.on('error', () => undefined);
  return pool;
}
