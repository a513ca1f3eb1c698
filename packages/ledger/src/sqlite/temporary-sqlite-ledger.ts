import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@queueport/core';
import type { Ledger } from '../ledger';
import { SqliteLedger } from './sqlite-ledger';

/** A throwaway SQLite ledger per run in the temp directory, removed with its WAL files afterwards. */
export async function temporarySqliteLedger(
  clock: Clock,
): Promise<{ ledger: Ledger; dispose(): Promise<void> }> {
  const filename = join(tmpdir(), `queueport-crash-${process.pid}-${randomUUID()}.sqlite`);
  const ledger = await SqliteLedger.open({ filename, clock });
  return {
    ledger,
    async dispose() {
      await ledger.close();
      await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${filename}${suffix}`, { force: true })));
    },
  };
}
