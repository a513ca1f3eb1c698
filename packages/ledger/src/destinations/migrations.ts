import type { Migration } from '../migrations/migration';

export const DESTINATIONS_TABLE = 'ledger_destinations';
export const PARKED_EVENTS_TABLE = 'ledger_parked_events';

/** SQLite version 3: destination state and parked events. */
export const SQLITE_DESTINATIONS_MIGRATION: Migration = {
  version: 3,
  name: 'destination state and parked events',
  statements: [
    `CREATE TABLE ${DESTINATIONS_TABLE} (
      destination_id TEXT NOT NULL PRIMARY KEY,
      disabled INTEGER NOT NULL CHECK (disabled IN (0, 1)),
      reason TEXT,
      disabled_at INTEGER,
      enabled_at INTEGER,
      updated_at INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID`,
    // A rowid table: bodies run to hundreds of KiB, and WITHOUT ROWID suits small rows only.
    `CREATE TABLE ${PARKED_EVENTS_TABLE} (
      event_id TEXT NOT NULL PRIMARY KEY,
      destination_id TEXT NOT NULL,
      due_at INTEGER NOT NULL,
      parked_at INTEGER NOT NULL,
      park_count INTEGER NOT NULL CHECK (park_count >= 1),
      body TEXT NOT NULL
    ) STRICT`,
    `CREATE INDEX ledger_parked_due ON ${PARKED_EVENTS_TABLE} (destination_id, due_at, event_id)`,
  ],
};

/** PostgreSQL version 4, the same tables; `schema` is a validated identifier, already quoted. */
export function postgresDestinationsMigration(schema: string): Migration {
  return {
    version: 4,
    name: 'destination state and parked events',
    statements: [
      `CREATE TABLE ${schema}.${DESTINATIONS_TABLE} (
        destination_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        disabled BOOLEAN NOT NULL,
        reason TEXT,
        disabled_at BIGINT,
        enabled_at BIGINT,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE ${schema}.${PARKED_EVENTS_TABLE} (
        event_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        destination_id TEXT COLLATE "C" NOT NULL,
        due_at BIGINT NOT NULL,
        parked_at BIGINT NOT NULL,
        park_count INTEGER NOT NULL CHECK (park_count >= 1),
        body TEXT NOT NULL
      )`,
      `CREATE INDEX ledger_parked_due ON ${schema}.${PARKED_EVENTS_TABLE} (destination_id, due_at, event_id)`,
    ],
  };
}

/** A table beside the ledger's own, qualified as `ledgerTable` is (`"schema".ledger_events`). */
export function siblingTable(ledgerTable: string, name: string): string {
  return ledgerTable.replace(/[A-Za-z_][A-Za-z0-9_]*$/, name);
}

/**
 * The condition that keeps a parked event out of `scanPending`: it is not stuck while its
 * destination is disabled. Once the destination is enabled, a parked event a resume has not
 * reached yet is listed again, so reconciliation is the safety net of a resume cut short.
 */
export function notParkedWhileDisabled(ledgerTable: string): string {
  const parked = siblingTable(ledgerTable, PARKED_EVENTS_TABLE);
  const destinations = siblingTable(ledgerTable, DESTINATIONS_TABLE);
  return (
    `NOT EXISTS (SELECT 1 FROM ${parked} p JOIN ${destinations} d ON d.destination_id = p.destination_id ` +
    `WHERE p.event_id = ${ledgerTable}.event_id AND d.disabled)`
  );
}
