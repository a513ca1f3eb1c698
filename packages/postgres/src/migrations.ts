import { QueueError } from '@queueport/core/driver';
import type { PoolClient } from 'pg';

export const MIGRATIONS_TABLE = 'queue_schema_migrations';
export const SCHEMA_VERSION = 1;

/**
 * Versioned schema changes; `s` is the quoted schema. Every queue of a schema shares these
 * tables (one migration and one set of indexes for any number of queues; a queue is a row in
 * `queues`). A later change is a new version, never an edit of one that shipped.
 * COLLATE "C": names and keys compare by code point, fast and locale-independent.
 */
const migrations = (s: string): readonly (readonly string[])[] => [
  [
    `CREATE TABLE ${s}.queues (name TEXT COLLATE "C" PRIMARY KEY, max_receives INTEGER CHECK (max_receives >= 1),
      dedupe_window_seconds INTEGER NOT NULL CHECK (dedupe_window_seconds >= 1), created_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    `CREATE TABLE ${s}.messages (id BIGSERIAL PRIMARY KEY,
      queue TEXT COLLATE "C" NOT NULL REFERENCES ${s}.queues (name) ON DELETE CASCADE,
      event_id TEXT NOT NULL, body TEXT NOT NULL, attributes TEXT NOT NULL, group_id TEXT,
      enqueued_at TIMESTAMPTZ NOT NULL DEFAULT now(), visible_at TIMESTAMPTZ NOT NULL,
      receive_count INTEGER NOT NULL DEFAULT 0, lease_token UUID)`,
    // The receive's scan: a queue's visible rows, oldest due first.
    `CREATE INDEX messages_due ON ${s}.messages (queue, visible_at, id)`,
    // Outlives its message (acked or not) for the window: dedupe is by time, not presence.
    `CREATE TABLE ${s}.dedupe (queue TEXT COLLATE "C" NOT NULL REFERENCES ${s}.queues (name) ON DELETE CASCADE,
      dedupe_key TEXT COLLATE "C" NOT NULL, message_id BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (queue, dedupe_key))`,
    `CREATE INDEX dedupe_expires ON ${s}.dedupe (expires_at)`,
    `CREATE TABLE ${s}.dead_letters (id BIGINT PRIMARY KEY,
      queue TEXT COLLATE "C" NOT NULL REFERENCES ${s}.queues (name) ON DELETE CASCADE,
      event_id TEXT NOT NULL, body TEXT NOT NULL, attributes TEXT NOT NULL, group_id TEXT,
      receive_count INTEGER NOT NULL, reason TEXT NOT NULL, dead_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    `CREATE INDEX dead_letters_oldest ON ${s}.dead_letters (queue, dead_at, id)`,
  ],
];

/**
 * Brings `schema` to the newest version in one transaction. Processes opening at once queue on
 * a transaction-scoped advisory lock keyed by the schema, so exactly one applies each version.
 * Creates the schema only when missing, so a role without CREATE can use a prepared one. A
 * version this code does not know means a newer release migrated it: refused, not guessed.
 */
export async function migrate(client: PoolClient, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `queueport.queue:${schema}`,
    ]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    const table = `${s}.${MIGRATIONS_TABLE}`;
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const applied = (await client.query(`SELECT version FROM ${table}`)).rows.map((row) =>
      Number(row.version),
    );
    const newer = applied.find((version) => !(version >= 1 && version <= SCHEMA_VERSION));
    if (newer !== undefined) {
      throw new QueueError(
        'INTERNAL',
        `pgqueue: schema ${schema} is at version ${newer}, newer than this @queueport/postgres knows (${SCHEMA_VERSION}); upgrade it`,
      );
    }
    for (const [index, statements] of migrations(s).entries()) {
      if (applied.includes(index + 1)) continue;
      for (const statement of statements) await client.query(statement);
      await client.query(`INSERT INTO ${table} (version) VALUES ($1)`, [index + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
