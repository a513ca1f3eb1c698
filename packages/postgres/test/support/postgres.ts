import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';

/** The shared test server, as the root global setup started it. */
export const serverUrl = new URL(inject('queueportServices').postgresUrl);

/** One direct connection for the test's own looks at the database. */
export async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl.href });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The provider URL of a schema of its own for this file; every schema the file made is dropped
 * after its last test. `options` are further URL options.
 */
export function schemasPerFile(label: string) {
  const prefix = `pgq_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  let count = 0;
  afterAll(async () => {
    await withClient(async (client) => {
      const { rows } = await client.query<{ nspname: string }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 || '\\_%'",
        [prefix],
      );
      for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    });
  });
  return {
    next(options: Record<string, string> = {}): { schema: string; providerUrl: string } {
      const schema = `${prefix}_${++count}`;
      const url = new URL(`pgqueue://${serverUrl.hostname}:${serverUrl.port || 5432}`);
      url.searchParams.set('database', serverUrl.pathname.slice(1) || 'postgres');
      url.searchParams.set('user', decodeURIComponent(serverUrl.username || 'postgres'));
      url.searchParams.set('schema', schema);
      for (const [key, value] of Object.entries(options)) url.searchParams.set(key, value);
      return { schema, providerUrl: url.href };
    },
  };
}

/** Ends every backend of one driver (by its application_name), as a network cut or failover would. */
export async function terminateBackends(applicationName: string): Promise<number> {
  return withClient(async (client) => {
    const { rows } = await client.query(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    return rows.filter((row) => row.ended).length;
  });
}
