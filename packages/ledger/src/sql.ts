import type { SqlValue } from './record';

/**
 * Statements are written once with `:name` parameters and compiled per dialect: SQLite gets one
 * `?` per occurrence, PostgreSQL one `$n` per distinct name.
 */
export interface CompiledSql {
  text: string;
  /** The parameter for each placeholder, in order. */
  names: readonly string[];
}

export type Dialect = 'sqlite' | 'postgres';

const NAMED = /(?<![:\w]):([a-z_][a-z0-9_]*)/g;

export function compileNamed(sql: string, dialect: Dialect): CompiledSql {
  const names: string[] = [];
  const text = sql.replace(NAMED, (_match, name: string) => {
    if (dialect === 'sqlite') {
      names.push(name);
      return '?';
    }
    let index = names.indexOf(name);
    if (index === -1) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, names };
}

export function bindValues(compiled: CompiledSql, params: Readonly<Record<string, SqlValue>>): SqlValue[] {
  return compiled.names.map((name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`ledger statement is missing parameter :${name}`);
    return value;
  });
}
