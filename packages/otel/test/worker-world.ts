import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@queueport/core';
import type { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';

/** A ledger store to run the worker over, and how to drop what it left behind. */
export interface LedgerStore {
  name: string;
  open(clock: Clock): Promise<{ ledger: Ledger; dispose(): Promise<void> }>;
}

// The root vitest global setup provides the URL (a local server, or QUEUEPORT_POSTGRES_URL).
const postgresUrl = process.env.QUEUEPORT_POSTGRES_URL || undefined;

export const LEDGER_STORES: LedgerStore[] = [
  {
    name: 'SQLite',
    async open(clock) {
      const filename = join(tmpdir(), `queueport-otel-${crypto.randomUUID()}.sqlite`);
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
    name: 'PostgreSQL',
    async open(clock) {
      if (!postgresUrl)
        throw new Error('no PostgreSQL URL: the test services provide QUEUEPORT_POSTGRES_URL');
      const schema = `otel_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
      const ledger = await openPostgresLedger({ connectionString: postgresUrl, schema, clock });
      return {
        ledger,
        dispose: async () => {
          const { default: pg } = await import('pg');
          await ledger.close();
          const client = new pg.Client({ connectionString: postgresUrl });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        },
      };
    },
  },
];

/** Moves the virtual clock in small steps, with real time for HTTP and the database between, until `check` holds. */
export async function until(
  clock: VirtualClock,
  check: () => boolean,
  what: string,
  stepMs = 100,
): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`gave up waiting for ${what}`);
}
