import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@queueport/core';
import type { AttemptLog, LedgerWithDestinations } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { inject } from 'vitest';

/** A ledger of its own for one test, and how to remove every trace of it. */
export interface OpenedLedger {
  ledger: LedgerWithDestinations & AttemptLog;
  dispose(): Promise<void>;
}

export type OpenLedger = (clock: Clock) => Promise<OpenedLedger>;

/**
 * Both stores, as `describe.each` takes them: a fresh SQLite file, a fresh PostgreSQL schema.
 * `tag` (an identifier: it names the schema) goes into each name, so what a crashed run left
 * behind says which test it was.
 */
export function ledgerStores(tag: string): [name: string, open: OpenLedger][] {
  return [
    [
      'sqlite',
      async (clock) => {
        const filename = join(tmpdir(), `queueport-${tag}-${crypto.randomUUID()}.sqlite`);
        const ledger = await openSqliteLedger({ filename, clock });
        return {
          ledger,
          dispose: async () => {
            await ledger.close();
            await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${filename}${s}`, { force: true })));
          },
        };
      },
    ],
    [
      'postgres',
      async (clock) => {
        const postgresUrl = inject('queueportServices').postgresUrl;
        const schema = `webhook_${tag}_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
        const ledger = await openPostgresLedger({ connectionString: postgresUrl, schema, clock });
        return {
          ledger,
          dispose: async () => {
            await ledger.close();
            const { default: pg } = await import('pg');
            const client = new pg.Client({ connectionString: postgresUrl });
            await client.connect();
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            await client.end();
          },
        };
      },
    ],
  ];
}
