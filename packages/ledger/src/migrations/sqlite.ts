import type { Database } from 'better-sqlite3';
import { SQLITE_ATTEMPTS_MIGRATION } from '../attempts/attempt-migrations';
import { SQLITE_DESTINATIONS_MIGRATION } from '../destinations/migrations';
import { LEDGER_TABLE } from '../statements';
import { MIGRATIONS_TABLE, type Migration, pendingMigrations } from './migration';

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger events',
    statements: [
      `CREATE TABLE ${LEDGER_TABLE} (
        event_id TEXT NOT NULL PRIMARY KEY,
        payload_sha256 TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('processing', 'delivered', 'failed')),
        attempts INTEGER NOT NULL CHECK (attempts >= 0),
        lease_owner TEXT,
        lease_until INTEGER,
        last_outcome TEXT,
        ambiguous INTEGER NOT NULL DEFAULT 0 CHECK (ambiguous IN (0, 1)),
        delivered_at INTEGER,
        retry_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        CHECK ((lease_owner IS NULL) = (lease_until IS NULL))
      ) STRICT, WITHOUT ROWID`,
      `CREATE INDEX ledger_events_pending ON ${LEDGER_TABLE} (created_at, event_id) WHERE state = 'processing'`,
      `CREATE INDEX ledger_events_terminal ON ${LEDGER_TABLE} (updated_at) WHERE state <> 'processing'`,
      `CREATE INDEX ledger_events_ambiguous ON ${LEDGER_TABLE} (event_id) WHERE ambiguous`,
    ],
  },
  SQLITE_ATTEMPTS_MIGRATION,
  SQLITE_DESTINATIONS_MIGRATION,
];

/**
 * Brings the file to the newest schema in one IMMEDIATE transaction (the write lock first, so
 * concurrent openers queue on busy_timeout instead of racing). Idempotent.
 */
export function migrateSqlite(
  db: Database,
  now: number,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
): void {
  db.transaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER NOT NULL PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`,
    );
    const applied = db
      .prepare(`SELECT version FROM ${MIGRATIONS_TABLE}`)
      .pluck()
      .all()
      .map((version) => Number(version));
    const record = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, applied_at) VALUES (?, ?)`);
    for (const migration of pendingMigrations(migrations, applied)) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, now);
    }
  }).immediate();
}
