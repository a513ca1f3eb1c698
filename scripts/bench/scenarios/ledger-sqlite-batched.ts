import path from 'node:path';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import type { PairScenario } from '../runner';
import { bareBatchInsert } from '../shared/bare-batches';
import { tempDir } from '../shared/fixtures';
import { claimAndComplete, DIGEST, forSlice, ids, LEDGER_CONCURRENCY, sliceMs } from '../shared/ledger-loop';
import { openBareSqlite, sqliteVersion } from '../shared/sqlite';

/**
 * Informative, without a target: the grouped ledger beside the least a grouped write can cost,
 * one bare multi-row upsert of a whole batch per autocommit. The subject writes each id twice
 * (claim, then complete) in its wide row with three partial indexes; the baseline once, narrow.
 */
export const ledgerSqliteBatched: PairScenario = {
  kind: 'pair',
  name: 'ledger-sqlite-batched',
  description: `The SQLite ledger's grouped claim + complete of distinct ids from ${LEDGER_CONCURRENCY} callers beside one bare multi-row INSERT … ON CONFLICT DO NOTHING of ${LEDGER_CONCURRENCY} distinct ids per autocommit statement, on the same file with the same pragmas.`,
  subject: `ledger claim + complete of distinct ids, ${LEDGER_CONCURRENCY} callers through group commit (SQLite)`,
  baseline: `bare multi-row INSERT … ON CONFLICT DO NOTHING of ${LEDGER_CONCURRENCY} distinct ids, one autocommit statement per batch (better-sqlite3)`,
  async open({ quick }) {
    const temp = tempDir('ledger-sqlite-batched');
    const filename = path.join(temp.dir, 'ledger.db');
    const ledger = await openSqliteLedger({ filename });
    const bare = openBareSqlite(filename);
    bare.exec(
      'CREATE TABLE bench_bare (event_id TEXT NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT, WITHOUT ROWID',
    );
    const insert = bareBatchInsert(bare, 'bench_bare', ['event_id', 'payload_sha256', 'created_at']);
    const nextBareId = ids('bare');
    const ms = sliceMs(quick);
    return {
      detail: `SQLite ${sqliteVersion(bare)}, WAL, synchronous=NORMAL, better-sqlite3; ${ms} ms per side per round; the baseline counts ids, ${LEDGER_CONCURRENCY} per statement`,
      subject: forSlice(ms, claimAndComplete(ledger), LEDGER_CONCURRENCY),
      baseline: forSlice(
        ms,
        () => {
          const now = Date.now();
          insert(Array.from({ length: LEDGER_CONCURRENCY }, () => [nextBareId(), DIGEST, now]));
        },
        1,
        LEDGER_CONCURRENCY,
      ),
      async close() {
        await ledger.close();
        bare.close();
        temp.remove();
      },
    };
  },
};
