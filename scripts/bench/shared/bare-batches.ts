/**
 * The batched baselines' bare SQL: one multi-row statement for a whole batch, the least a store
 * that groups its writes does per commit. Prepared once per batch size (the last batch of a
 * round is shorter).
 */
import type { SqliteHandle, SqliteStatement } from './sqlite';

/** Rows of (event_id, payload_sha256, a time) into `columns`, inserted by one autocommit statement. */
export function bareBatchInsert(
  db: SqliteHandle,
  table: string,
  columns: readonly [string, string, string],
): (rows: ReadonlyArray<[string, string, number]>) => void {
  const bySize = new Map<number, SqliteStatement>();
  return (rows) => {
    let statement = bySize.get(rows.length);
    if (!statement) {
      const values = rows.map(() => '(?, ?, ?)').join(', ');
      statement = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values} ON CONFLICT DO NOTHING`,
      );
      bySize.set(rows.length, statement);
    }
    statement.run(...rows.flat());
  };
}

/** The outcome of every id of a batch in one autocommit UPDATE … WHERE event_id IN (…). */
export function bareBatchUpdate(
  db: SqliteHandle,
  table: string,
): (ids: readonly string[], outcome: string) => void {
  const bySize = new Map<number, SqliteStatement>();
  return (ids, outcome) => {
    let statement = bySize.get(ids.length);
    if (!statement) {
      const marks = ids.map(() => '?').join(', ');
      statement = db.prepare(`UPDATE ${table} SET outcome = ?, updated_at = ? WHERE event_id IN (${marks})`);
      bySize.set(ids.length, statement);
    }
    statement.run(outcome, Date.now(), ...ids);
  };
}
