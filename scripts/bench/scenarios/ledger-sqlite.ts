import path from 'node:path';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import type { PairScenario } from '../runner';
import { tempDir } from '../shared/fixtures';
import { claimAndComplete, DIGEST, forSlice, ids, LEDGER_CONCURRENCY, sliceMs } from '../shared/ledger-loop';
import { openBareSqlite, sqliteVersion } from '../shared/sqlite';

export const ledgerSqlite: PairScenario = {
  kind: 'pair',
  name: 'ledger-sqlite',
  description: `The SQLite ledger's claim + complete of distinct event ids from ${LEDGER_CONCURRENCY} concurrent callers (group commit joins them into one transaction per turn) beside one bare INSERT … ON CONFLICT DO NOTHING loop on the same file with the same pragmas, one autocommit statement per id.`,
  subject: `ledger claim + complete of distinct ids, ${LEDGER_CONCURRENCY} callers through group commit (SQLite)`,
  baseline:
    'bare INSERT … ON CONFLICT DO NOTHING of a distinct id, one autocommit statement (better-sqlite3)',
  targets: [{ metric: 'ratio', atLeast: 1.0 }],
  remains:
    'group commit puts the claims of a turn in one IMMEDIATE transaction and their completions in another: in a batch of 16, a claim costs about 13 µs and a completion about 14 µs, where one bare autocommit upsert costs about 38 (the commit is most of it). ' +
    'What is left is the wide row written twice and its three partial indexes (pending, terminal, ambiguous), which reconciliation and prune read; a narrow hot row was not needed to meet the target.',
  async open({ quick }) {
    const temp = tempDir('ledger-sqlite');
    const filename = path.join(temp.dir, 'ledger.db');
    const ledger = await openSqliteLedger({ filename });
    const bare = openBareSqlite(filename);
    bare.exec(
      'CREATE TABLE bench_bare (event_id TEXT NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT, WITHOUT ROWID',
    );
    const insert = bare.prepare(
      'INSERT INTO bench_bare (event_id, payload_sha256, created_at) VALUES (?, ?, ?) ON CONFLICT (event_id) DO NOTHING',
    );
    const nextBareId = ids('bare');
    const ms = sliceMs(quick);
    return {
      detail: `SQLite ${sqliteVersion(bare)}, WAL, synchronous=NORMAL, better-sqlite3; ${ms} ms per side per round`,
      subject: forSlice(ms, claimAndComplete(ledger), LEDGER_CONCURRENCY),
      baseline: forSlice(ms, () => {
        insert.run(nextBareId(), DIGEST, Date.now());
      }),
      async close() {
        await ledger.close();
        bare.close();
        temp.remove();
      },
    };
  },
};
