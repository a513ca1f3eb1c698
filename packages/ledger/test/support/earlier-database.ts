import { type Clock, payloadDigest } from '@queueport/core';
import type { AttemptLog, LedgerWithDestinations } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import Database from 'better-sqlite3';
import { postgresMigrations } from '../../src/migrations/postgres';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../src/migrations/sqlite';
import type { FileSchemas } from './postgres';

/** When the earlier release applied its migrations: before any clock a test opens this release on. */
const EARLIER_APPLIED_AT = 7;
/** The payload of every row it wrote: no test here claims those ids again with another. */
const PAYLOAD_SHA256 = payloadDigest({ written: 'by an earlier release' });
/** When it wrote its rows. */
const WRITTEN_AT = 10;
/** Far past every clock here: a lease one of its workers still holds across the upgrade. */
const HELD_UNTIL = 10_000_000;

/** One ledger row of the earlier release's; a delivered one was delivered when it was written. */
export interface EarlierRow {
  eventId: string;
  state: 'processing' | 'delivered' | 'failed';
  attempts: number;
  /** The worker holding the lease of a processing row; null for a released or settled row. */
  leaseOwner: string | null;
  lastOutcome: string | null;
  ambiguous?: boolean;
}

/**
 * A database as an earlier release left it: migrated up to a version, with rows in it. What a
 * migration test opens this release on, to see the rows kept and the versions after it applied.
 */
export interface EarlierDatabase {
  /** The file, or the schema. */
  name: string;
  /** This release's ledger on it: opening migrates it. */
  open(options: { clock: Clock; groupCommit?: false }): Promise<LedgerWithDestinations & AttemptLog>;
  /** Every ledger row, every column as stored, by event id. */
  rows(): Promise<unknown[]>;
  /** The migrations recorded, by version. */
  applied(): Promise<AppliedMigration[]>;
  /** What `applied` must say once this release opened it at `now`: the rest of its versions, then. */
  upgradedAt(now: number): AppliedMigration[];
}

export interface AppliedMigration {
  version: number;
  appliedAt: number;
}

function upgradedAt(all: readonly { version: number }[], earlier: number, now: number): AppliedMigration[] {
  return all
    .map(({ version }) => ({ version, appliedAt: version <= earlier ? EARLIER_APPLIED_AT : now }))
    .sort((a, b) => a.version - b.version);
}

const COLUMNS =
  'event_id, payload_sha256, state, attempts, lease_owner, lease_until, last_outcome, ambiguous, delivered_at, retry_at, created_at, updated_at';

function columnValues(row: EarlierRow): unknown[] {
  return [
    row.eventId,
    PAYLOAD_SHA256,
    row.state,
    row.attempts,
    row.leaseOwner,
    row.leaseOwner === null ? null : HELD_UNTIL,
    row.lastOutcome,
    row.ambiguous ?? false,
    row.state === 'delivered' ? WRITTEN_AT : null,
    null,
    WRITTEN_AT,
    WRITTEN_AT,
  ];
}

/** A SQLite file at `version`, holding `rows`. */
export function sqliteAt(filename: string, version: number, rows: readonly EarlierRow[]): EarlierDatabase {
  const db = new Database(filename);
  try {
    migrateSqlite(
      db,
      EARLIER_APPLIED_AT,
      SQLITE_MIGRATIONS.filter((migration) => migration.version <= version),
    );
    const insert = db.prepare(
      `INSERT INTO ledger_events (${COLUMNS}) VALUES (${COLUMNS.replace(/\w+/g, '?')})`,
    );
    for (const row of rows) {
      // SQLite keeps booleans as 0 and 1.
      insert.run(columnValues(row).map((value) => (typeof value === 'boolean' ? Number(value) : value)));
    }
  } finally {
    db.close();
  }
  const read = <T>(sql: string): T[] => {
    const file = new Database(filename, { readonly: true });
    try {
      return file.prepare(sql).all() as T[];
    } finally {
      file.close();
    }
  };
  return {
    name: filename,
    open: (options) => openSqliteLedger({ filename, ...options }),
    rows: async () => read('SELECT * FROM ledger_events ORDER BY event_id'),
    applied: async () =>
      read<{ version: number; applied_at: number }>(
        'SELECT version, applied_at FROM ledger_schema_migrations ORDER BY version',
      ).map(({ version, applied_at }) => ({ version, appliedAt: applied_at })),
    upgradedAt: (now) => upgradedAt(SQLITE_MIGRATIONS, version, now),
  };
}

/** A PostgreSQL schema of this file's at `version`, holding `rows`. */
export async function postgresAt(
  schemas: FileSchemas,
  version: number,
  rows: readonly EarlierRow[],
): Promise<EarlierDatabase> {
  const schema = schemas.next();
  const quoted = `"${schema}"`;
  const admin = schemas.admin();
  await admin.query(`CREATE SCHEMA ${quoted}`);
  await admin.query(
    `CREATE TABLE ${quoted}.ledger_schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`,
  );
  const migrations = postgresMigrations(quoted);
  for (const migration of migrations.filter((each) => each.version <= version)) {
    for (const statement of migration.statements) await admin.query(statement);
    await admin.query(`INSERT INTO ${quoted}.ledger_schema_migrations VALUES ($1, $2)`, [
      migration.version,
      EARLIER_APPLIED_AT,
    ]);
  }
  const placeholders = COLUMNS.split(', ').map((_, index) => `$${index + 1}`);
  for (const row of rows) {
    await admin.query(
      `INSERT INTO ${quoted}.ledger_events (${COLUMNS}) VALUES (${placeholders.join(', ')})`,
      columnValues(row),
    );
  }
  return {
    name: schema,
    open: (options) => openPostgresLedger({ connectionString: schemas.connectionString, schema, ...options }),
    rows: async () => (await admin.query(`SELECT * FROM ${quoted}.ledger_events ORDER BY event_id`)).rows,
    applied: async () => {
      const { rows: applied } = await admin.query<{ version: number; applied_at: string }>(
        `SELECT version, applied_at FROM ${quoted}.ledger_schema_migrations ORDER BY version`,
      );
      // BIGINT comes back as a string.
      return applied.map(({ version, applied_at }) => ({ version, appliedAt: Number(applied_at) }));
    },
    upgradedAt: (now) => upgradedAt(migrations, version, now),
  };
}
