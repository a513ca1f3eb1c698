import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteLedger } from '@queueport/ledger';
import type { LedgerFactory } from './run-scenario';

/** A throwaway SQLite ledger per run in the temp directory, removed with its WAL files afterwards. */
export const temporarySqliteLedger: LedgerFactory = async (clock) => {
  const filename = join(tmpdir(), `queueport-crash-${process.pid}-${randomUUID()}.sqlite`);
  const ledger = await openSqliteLedger({ filename, clock });
  return {
    ledger,
    async dispose() {
      await ledger.close();
      await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${filename}${suffix}`, { force: true })));
    },
  };
};
