import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VirtualClock } from '@queueport/core/testing';
import { afterAll, expect, inject, it } from 'vitest';
import { type EarlierDatabase, type EarlierRow, postgresAt, sqliteAt } from './support/earlier-database';
import { schemasPerFile } from './support/postgres';

/**
 * A database an earlier release left populated, at the schema version before the attempt log
 * (SQLite 1, PostgreSQL 2), opened by this release: the old rows stay as they were, claims made
 * before the upgrade settle with their attempts under the claim numbers they hold, and opening
 * again applies nothing more.
 */

const OLD_ROWS: EarlierRow[] = [
  { eventId: 'old-delivered', state: 'delivered', attempts: 1, leaseOwner: null, lastOutcome: 'http 200' },
  { eventId: 'old-failed', state: 'failed', attempts: 3, leaseOwner: null, lastOutcome: 'http 410' },
  { eventId: 'open-a', state: 'processing', attempts: 2, leaseOwner: 'w1', lastOutcome: 'http 503' },
  { eventId: 'open-b', state: 'processing', attempts: 1, leaseOwner: 'w1', lastOutcome: null },
  { eventId: 'open-c', state: 'processing', attempts: 4, leaseOwner: 'w2', lastOutcome: null },
];
const attempt = (statusCode: number) => ({ startedAt: 900, durationMs: 100, statusCode, destinationId: 'd' });

const dir = mkdtempSync(path.join(tmpdir(), 'queueport-attempt-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const schemas = schemasPerFile('ledger_attempt_migrate', inject('queueportServices').postgresUrl);

interface Upgrade {
  store: string;
  /** The earlier release's last version: the attempt log is the next. */
  from: number;
  at: (version: number, rows: readonly EarlierRow[]) => Promise<EarlierDatabase>;
  /** A process of the earlier release, still running through the upgrade, settles open-c its way. */
  earlierSettle?: (db: EarlierDatabase) => Promise<void>;
  /** The rows terminal once the claims here are settled: what prune deletes. */
  terminal: number;
}

const UPGRADES: Upgrade[] = [
  {
    store: 'SQLite',
    from: 1,
    at: async (version, rows) => sqliteAt(path.join(dir, 'earlier.db'), version, rows),
    terminal: 3,
  },
  {
    store: 'PostgreSQL',
    from: 2,
    at: (version, rows) => postgresAt(schemas, version, rows),
    // Through migration 2's batch settle function, as that release settles.
    earlierSettle: async (db) => {
      await schemas
        .admin()
        .query(`SELECT * FROM "${db.name}".ledger_settle_batch($1, $2, $3, $4, $5, $6, $7, $8)`, [
          ['open-c'],
          ['w2'],
          ['delivered'],
          ['http 200'],
          [999],
          [null],
          [false],
          999,
        ]);
    },
    terminal: 4,
  },
];

it.each(UPGRADES)(
  '$store: a version-$from database gains the attempt log, keeps its rows, logs the claims made before, reopens idempotently',
  async ({ from, at, earlierSettle, terminal }) => {
    const db = await at(from, OLD_ROWS);
    const before = await db.rows();
    const upgraded = db.upgradedAt(1_000);

    const clock = new VirtualClock(1_000);
    const ledger = await db.open({ clock });
    const single = await db.open({ clock, groupCommit: false });
    try {
      expect(await db.applied()).toEqual(upgraded);
      expect(await db.rows()).toEqual(before);
      if (earlierSettle) {
        await earlierSettle(db);
        expect(await ledger.get('open-c')).toMatchObject({ state: 'delivered', attempts: 4 });
      }

      await single.complete({ eventId: 'open-a', owner: 'w1', outcome: 'http 200', attempt: attempt(200) });
      const batch = await ledger.settleMany([
        { kind: 'release', eventId: 'open-b', owner: 'w1', outcome: 'http 503', attempt: attempt(503) },
        // w2's lease, or settled already by the earlier release: lease lost, no attempt.
        { kind: 'complete', eventId: 'open-c', owner: 'w1', outcome: 'http 200', attempt: attempt(200) },
      ]);
      expect(batch.map((outcome) => outcome.ok)).toEqual([true, false]);
      expect(await ledger.listAttempts({ eventId: 'open-a', limit: 10 })).toMatchObject([
        { attempt: 2, outcome: 'delivered', statusCode: 200, destinationId: 'd' },
      ]);
      expect(await ledger.listAttempts({ eventId: 'open-b', limit: 10 })).toMatchObject([
        { attempt: 1, outcome: 'retry', statusCode: 503 },
      ]);
      expect(await ledger.listAttempts({ eventId: 'open-c', limit: 10 })).toEqual([]);
      // Rows from before the log have no attempts to prune with them, and prune as before.
      expect(await ledger.get('old-failed')).toMatchObject({ state: 'failed', attempts: 3 });
      await clock.advance(1);
      expect(await ledger.prune({ olderThanSeconds: 0 })).toBe(terminal);
      expect(await ledger.listAttempts({ eventId: 'open-a', limit: 10 })).toEqual([]);
      expect(await ledger.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
    } finally {
      await ledger.close();
      await single.close();
    }

    const again = await db.open({ clock: new VirtualClock(5_000) });
    try {
      expect(await again.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
      expect(await db.applied()).toEqual(upgraded);
    } finally {
      await again.close();
    }
  },
);
