import { payloadDigest } from '@queueport/core';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { expect, inject, it } from 'vitest';
import { createPool, schemasPerFile } from './support/postgres';

const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_plan', connectionString);

const DIGEST = payloadDigest({ plan: true });
const GROWN = 20_000;
const BATCH = 16;

/**
 * A table that grows fast after the ledger opens (a fresh deployment's first minutes, before
 * autovacuum has analysed it) must not be read whole by each grouped settle: a plan made while the
 * table was small, kept for the connection, turned every settle into a scan of the table.
 */
// With attempts the settle goes through migration 3's function, whose plan is pinned the same way.
it.each([
  ['without attempts', false],
  ['recording attempts', true],
])(
  'grouped settles %s read a grown table through its primary key, not by scanning it',
  async (_, withAttempts) => {
    const schema = schemas.next();
    // One connection, so the settles planned on the small table and on the grown one share it.
    const pool = await createPool(connectionString, 1);
    const ledger = await openPostgresLedger({ pool, schema });
    let next = 0;
    const claimSettle = async (count: number) => {
      const ids = Array.from({ length: count }, () => `plan-${next++}`);
      await ledger.claimMany(
        ids.map((eventId) => ({ eventId, payloadSha256: DIGEST, owner: 'w', leaseSeconds: 60 })),
      );
      const settled = await ledger.settleMany(
        ids.map((eventId) => ({
          kind: 'complete',
          eventId,
          owner: 'w',
          outcome: 'http 200',
          ...(withAttempts ? { attempt: { startedAt: 1, durationMs: 1, statusCode: 200 } } : {}),
        })),
      );
      expect(settled.every((outcome) => outcome.ok)).toBe(true);
    };
    try {
      for (let i = 0; i < 10; i++) await claimSettle(BATCH);
      for (let grown = 0; grown < GROWN; grown += 1000) {
        const ids = Array.from({ length: 1000 }, () => `plan-${next++}`);
        await ledger.claimMany(
          ids.map((eventId) => ({ eventId, payloadSha256: DIGEST, owner: 'w', leaseSeconds: 60 })),
        );
      }
      for (let i = 0; i < 10; i++) await claimSettle(BATCH);
    } finally {
      await ledger.close();
      // A backend reports its table statistics when it exits.
      await pool.end();
    }
    const admin = schemas.admin();
    // Tuples read by every scan of the table and its indexes, as the ledger's backend reported them.
    let read = 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      const { rows } = await admin.query<{ seq_tup_read: string; n_tup_ins: string }>(
        'SELECT seq_tup_read, n_tup_ins FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
        [schema, 'ledger_events'],
      );
      await admin.query('SELECT pg_stat_clear_snapshot()');
      // The exiting backend's report has arrived once its inserts are counted.
      if (rows[0] && Number(rows[0].n_tup_ins) >= GROWN) {
        const indexes = await admin.query<{ read: string }>(
          "SELECT coalesce(sum(idx_tup_read), 0) AS read FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = 'ledger_events'",
          [schema],
        );
        read = Number(rows[0].seq_tup_read) + Number(indexes.rows[0]?.read ?? 0);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Twenty settles of 16 read a few hundred rows through the primary key; a scan of the grown
    // table (or of the pending index, which keeps the dead entries of every settled claim until
    // vacuum) reads more than GROWN in one settle.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(GROWN);
  },
);
