/**
 * better-sqlite3 for the bare loops. It is a dependency of the ledger package, not of the
 * workspace root, so it is loaded from there and the few calls the loops make are typed here.
 */
import { createRequire } from 'node:module';

export interface SqliteStatement {
  run(...values: unknown[]): unknown;
  pluck(): { get(): unknown };
}
export interface SqliteHandle {
  pragma(source: string, options?: { simple: boolean }): unknown;
  exec(source: string): void;
  prepare(source: string): SqliteStatement;
  close(): void;
}
type SqliteConstructor = new (filename: string) => SqliteHandle;

export const driverRequire = createRequire(new URL('../../../packages/ledger/package.json', import.meta.url));

/** A connection with the pragmas the SQLite ledger sets on its own, so only the statements differ. */
export function openBareSqlite(filename: string): SqliteHandle {
  const Database = driverRequire('better-sqlite3') as SqliteConstructor;
  const db = new Database(filename);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

export function sqliteVersion(db: SqliteHandle): string {
  return String(db.prepare('SELECT sqlite_version()').pluck().get());
}
