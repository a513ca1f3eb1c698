import { randomBytes } from 'node:crypto';

/**
 * A database of its own on the test server, dropped by `drop`. The CLI opens its PostgreSQL
 * ledger in the database's default schema, with no schema to configure, so a test that runs the
 * CLI on a PostgreSQL ledger gets a database rather than a schema to keep it from the others.
 */
export async function freshDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `queueport_cli_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
