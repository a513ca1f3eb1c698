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
    'the two statements cost about 67 µs inside SQLite, where one bare upsert costs about 20 (raw better-sqlite3 on the same file and pragmas, no ledger code). ' +
    'About 25 µs of that is the three partial indexes that reconciliation (pending by age), prune (terminal by age) and the ambiguous scan read. The pending index alone is about 12 µs. ' +
    'Most of the rest is the 12-column row, inserted and then rewritten. The ledger’s own JavaScript (input checks, record mapping, two promises) adds about 19 µs. ' +
    'Even with no index at all, the pair would be at about 0.37, and reconciliation would then scan the whole table for every page, which is the wrong trade for the store that owns delivery history. ' +
    'Reaching 0.45 needs a schema migration: a narrow hot row for pending claims, apart from the terminal history, together with leaner ledger code.',
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
