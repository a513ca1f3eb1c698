import type { Pool } from 'pg';

export async function createPool(connectionString: string, max = 2): Promise<Pool> {
  const { default: pg } = await import('pg');
  return new pg.Pool({ connectionString, max });
}

export function postgresUrl(): string {
  const url = process.env.QUEUEPORT_POSTGRES_URL;
  if (!url) throw new Error('QUEUEPORT_POSTGRES_URL is not set (the root vitest globalSetup sets it)');
  return url;
}
