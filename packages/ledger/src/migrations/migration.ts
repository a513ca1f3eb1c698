import { QueueError } from '@queueport/core';

/** One schema change, applied once per database (SQLite) or schema (PostgreSQL). */
export interface Migration {
  /** 1, 2, 3…: applied in order, recorded in ledger_schema_migrations. */
  version: number;
  name: string;
  statements: readonly string[];
}

export const MIGRATIONS_TABLE = 'ledger_schema_migrations';

/**
 * The migrations still to apply, in order. A database that records a version this code does not
 * know was migrated by a newer release: refuse it rather than guess.
 */
export function pendingMigrations(all: readonly Migration[], applied: Iterable<number>): Migration[] {
  const known = new Set(all.map((migration) => migration.version));
  const done = new Set(applied);
  for (const version of done) {
    if (!known.has(version)) {
      throw new QueueError(
        'INTERNAL',
        `ledger: the database has schema version ${version}, newer than this @queueport/ledger knows (${Math.max(...known)}); upgrade the package`,
        { details: { version } },
      );
    }
  }
  return all.filter((migration) => !done.has(migration.version)).sort((a, b) => a.version - b.version);
}
