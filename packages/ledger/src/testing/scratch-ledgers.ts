import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@queueport/core';
import type { AttemptLog } from '../attempts/attempt-log';
import type { LedgerWithDestinations } from '../destinations/destination-state';

/** A ledger of one test's own, and how to remove every trace of it. */
export interface ScratchLedger {
  ledger: LedgerWithDestinations & AttemptLog;
  dispose(): Promise<void>;
}

export interface ScratchLedgerStore {
  name: 'sqlite' | 'postgres';
  open(clock: Clock): Promise<ScratchLedger>;
}

/**
 * Both stores for tests that run over either: a fresh SQLite file in the temporary directory,
 * a fresh schema on `postgresUrl`. `tag` (an identifier: it goes into the schema's name) names
 * what a crashed run left behind. The stores are imported when opened, so a test of one store
 * never loads the other's client.
 */
export function scratchLedgers(options: { tag: string; postgresUrl: string }): ScratchLedgerStore[] {
  const { tag, postgresUrl } = options;
  return [
    {
      name: 'sqlite',
      async open(clock) {
        const { openSqliteLedger } = await import('../sqlite');
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
    },
    {
      name: 'postgres',
      async open(clock) {
        const { openPostgresLedger } = await import('../postgres');
        const schema = `${tag}_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
        const ledger = await openPostgresLedger({ connectionString: postgresUrl, schema, clock });
        return {
          ledger,
          dispose: async () => {
            await ledger.close();
            const { default: pg } = await import('pg');
            const client = new pg.Client({ connectionString: postgresUrl });
            await client.connect();
            try {
              await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            } finally {
              await client.end();
            }
          },
        };
      },
    },
  ];
}
