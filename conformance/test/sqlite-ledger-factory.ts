import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerFactory } from '@queueport/conformance';
import { openSqliteLedger } from '@queueport/ledger';

/** A throwaway SQLite ledger per run, removed with its WAL files afterwards. */
export const sqliteLedger: LedgerFactory = async (clock) => {
  const filename = join(tmpdir(), `queueport-crash-${process.pid}-${crypto.randomUUID()}.sqlite`);
  const ledger = await openSqliteLedger({ filename, clock });
  return {
    ledger,
    async dispose() {
      await ledger.close();
      await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${filename}${suffix}`, { force: true })));
    },
  };
};
