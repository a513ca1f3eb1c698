import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { afterAll, beforeAll } from 'vitest';

export async function createPool(connectionString: string, max = 2): Promise<Pool> {
  const { default: pg } = await import('pg');
  return new pg.Pool({ connectionString, max });
}

/**
 * Schemas for one test file: each ledger the file opens gets its own schema under a prefix
 * unique to the file and run, and every one of them is dropped after the file's last test.
 * Registers the file's beforeAll / afterAll; `admin` is usable from the first test on.
 */
export function schemasPerFile(label: string, connectionString: string) {
  const prefix = `${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  let count = 0;
  let pool: Pool | undefined;
  beforeAll(async () => {
    pool = await createPool(connectionString);
  });
  afterAll(async () => {
    if (!pool) return;
    const { rows } = await pool.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 || '\\_%'",
      [prefix],
    );
    for (const { nspname } of rows) await pool.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    await pool.end();
  });
  const admin = (): Pool => {
    if (!pool) throw new Error('the admin pool opens in beforeAll');
    return pool;
  };
  return {
    connectionString,
    admin,
    next: (): string => `${prefix}_${++count}`,
    drop: async (schema: string): Promise<void> => {
      await admin().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

export type FileSchemas = ReturnType<typeof schemasPerFile>;
