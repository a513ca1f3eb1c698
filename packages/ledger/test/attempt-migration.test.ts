import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { postgresMigrations } from '../src/migrations/postgres';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../src/migrations/sqlite';
import { schemasPerFile } from './support/postgres';

/**
 * A database an earlier release left populated, at the schema version before the attempt log
 * (SQLite 1, PostgreSQL 2), opened by this release: the old rows stay as they were, claims made
 * before the upgrade settle with their attempts under the claim numbers they hold, and opening
 * again applies nothing more.
 */

const DIGEST = payloadDigest({ migrated: true });
const COLUMNS =
  'event_id, payload_sha256, state, attempts, lease_owner, lease_until, last_outcome, ambiguous, delivered_at, retry_at, created_at, updated_at';
/** Rows as the earlier release wrote them: [id, state, attempts, owner, outcome]. */
const OLD_ROWS: [string, string, number, string | null, string | null][] = [
  ['old-delivered', 'delivered', 1, null, 'http 200'],
  ['old-failed', 'failed', 3, null, 'http 410'],
  ['open-a', 'processing', 2, 'w1', 'http 503'],
  ['open-b', 'processing', 1, 'w1', null],
  ['open-c', 'processing', 4, 'w1', null],
];
const attempt = (statusCode: number) => ({ startedAt: 900, durationMs: 100, statusCode, destinationId: 'd' });

describe('SQLite: a version-1 file gains the attempt log (version 2)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'queueport-attempt-migration-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the old rows, records attempts of claims made before, and reopens idempotently', async () => {
    const filename = path.join(dir, 'v1.db');
    const db = new Database(filename);
    migrateSqlite(
      db,
      7,
      SQLITE_MIGRATIONS.filter((migration) => migration.version < 2),
    );
    const insert = db.prepare(
      `INSERT INTO ledger_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL, NULL, 10, 10)`,
    );
    for (const [id, state, attempts, owner, outcome] of OLD_ROWS) {
      insert.run(id, DIGEST, state, attempts, owner, owner ? 10_000_000 : null, outcome);
    }
    const before = db.prepare('SELECT * FROM ledger_events ORDER BY event_id').all();
    db.close();

    const clock = new VirtualClock(1_000);
    const ledger = await openSqliteLedger({ filename, clock });
    try {
      const file = new Database(filename, { readonly: true });
      const versions = file
        .prepare('SELECT version, applied_at FROM ledger_schema_migrations ORDER BY version')
        .all();
      expect(file.prepare('SELECT * FROM ledger_events ORDER BY event_id').all()).toEqual(before);
      file.close();
      expect(versions).toEqual(
        SQLITE_MIGRATIONS.map(({ version }) => ({ version, applied_at: version === 1 ? 7 : 1_000 })),
      );

      await ledger.complete({ eventId: 'open-a', owner: 'w1', outcome: 'http 200', attempt: attempt(200) });
      const batch = await ledger.settleMany([
        { kind: 'release', eventId: 'open-b', owner: 'w1', outcome: 'http 503', attempt: attempt(503) },
        { kind: 'complete', eventId: 'open-c', owner: 'w2', outcome: 'http 200', attempt: attempt(200) },
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
      expect(await ledger.prune({ olderThanSeconds: 0 })).toBe(3);
      expect(await ledger.listAttempts({ eventId: 'open-a', limit: 10 })).toEqual([]);
      expect(await ledger.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
    } finally {
      await ledger.close();
    }

    const again = await openSqliteLedger({ filename, clock: new VirtualClock(5_000) });
    try {
      expect(await again.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
      const file = new Database(filename, { readonly: true });
      const applied = file.prepare('SELECT version, applied_at FROM ledger_schema_migrations').all();
      file.close();
      expect(applied).toHaveLength(SQLITE_MIGRATIONS.length);
      expect(applied).not.toContainEqual(expect.objectContaining({ applied_at: 5_000 }));
    } finally {
      await again.close();
    }
  });
});

describe('PostgreSQL: a version-2 schema gains the attempt log (version 3)', () => {
  const connectionString = inject('queueportServices').postgresUrl;
  const schemas = schemasPerFile('ledger_attempt_migrate', connectionString);

  it('keeps the old rows and the old batch settle, records attempts of claims made before, and reopens idempotently', async () => {
    const schema = schemas.next();
    const quoted = `"${schema}"`;
    const admin = schemas.admin();
    await admin.query(`CREATE SCHEMA ${quoted}`);
    await admin.query(
      `CREATE TABLE ${quoted}.ledger_schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`,
    );
    for (const migration of postgresMigrations(quoted).filter(({ version }) => version < 3)) {
      for (const statement of migration.statements) await admin.query(statement);
      await admin.query(`INSERT INTO ${quoted}.ledger_schema_migrations VALUES ($1, 7)`, [migration.version]);
    }
    for (const [id, state, attempts, owner, outcome] of OLD_ROWS) {
      await admin.query(
        `INSERT INTO ${quoted}.ledger_events (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, FALSE, NULL, NULL, 10, 10)`,
        [id, DIGEST, state, attempts, owner, owner ? 10_000_000 : null, outcome],
      );
    }
    const rows = async () =>
      (await admin.query(`SELECT * FROM ${quoted}.ledger_events ORDER BY event_id`)).rows;
    const before = await rows();

    const clock = new VirtualClock(1_000);
    const ledger = await openPostgresLedger({ connectionString, schema, clock });
    const single = await openPostgresLedger({ connectionString, schema, clock, groupCommit: false });
    try {
      const versions = await admin.query(
        `SELECT version, applied_at FROM ${quoted}.ledger_schema_migrations ORDER BY version`,
      );
      const all = postgresMigrations(quoted)
        .map(({ version }) => version)
        .sort((a, b) => a - b);
      expect(versions.rows).toEqual(
        all.map((version) => ({ version, applied_at: version < 3 ? '7' : '1000' })),
      );
      expect(await rows()).toEqual(before);

      // A process of the previous release, still running, settles through migration 2's function.
      await admin.query(`SELECT * FROM ${quoted}.ledger_settle_batch($1, $2, $3, $4, $5, $6, $7, $8)`, [
        ['open-c'],
        ['w1'],
        ['delivered'],
        ['http 200'],
        [999],
        [null],
        [false],
        999,
      ]);
      expect(await ledger.get('open-c')).toMatchObject({ state: 'delivered', attempts: 4 });

      await single.complete({ eventId: 'open-a', owner: 'w1', outcome: 'http 200', attempt: attempt(200) });
      const batch = await ledger.settleMany([
        { kind: 'release', eventId: 'open-b', owner: 'w1', outcome: 'http 503', attempt: attempt(503) },
        // Settled already by the old release: lease lost, no attempt.
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
      await clock.advance(1);
      expect(await ledger.prune({ olderThanSeconds: 0 })).toBe(4);
      expect(await ledger.listAttempts({ eventId: 'open-a', limit: 10 })).toEqual([]);
      expect(await ledger.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
    } finally {
      await ledger.close();
      await single.close();
    }

    const again = await openPostgresLedger({ connectionString, schema, clock: new VirtualClock(5_000) });
    try {
      expect(await again.listAttempts({ eventId: 'open-b', limit: 10 })).toHaveLength(1);
      const applied = await admin.query(`SELECT applied_at FROM ${quoted}.ledger_schema_migrations`);
      expect(applied.rows).toHaveLength(postgresMigrations(quoted).length);
      expect(applied.rows).not.toContainEqual({ applied_at: '5000' });
    } finally {
      await again.close();
    }
  });
});
