/**
 * What the PostgreSQL queue scenarios share: one database (the ledger scenarios' own, skipped
 * when unreachable), a scratch schema for the adapter's tables and another for the bare ones,
 * the same envelopes of about 1 KB, and a bare `pg` queue (multi-row INSERT, a SKIP LOCKED
 * receive and a DELETE by id and token) as the raw side of every pair.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AdapterRegistry, type QueueAdmin } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { POSTGRES_BATCH, postgresQueueAdapter } from '@queueport/postgres';
import {
  type OtelAware,
  type PairScenario,
  type Sample,
  type ScenarioText,
  type Side,
  timed,
} from '../runner';
import { benchPair, type FreshQueues } from './bench-pair';
import { subjectQueueOptions } from './bench-telemetry';
import { eachChunk, encoded } from './kilobyte-envelopes';
import { driverRequire } from './sqlite';

/** What `publishBatch` and the bare INSERT carry per call: the adapter's own publish batch. */
export const PUBLISH_CHUNK = POSTGRES_BATCH;
/** The driver's pool (`poolMax`'s default); the bare side's Pool is as large. */
export const POOL_MAX = 10;
export const LEASE_SECONDS = 30;
const DEDUPE_WINDOW_SECONDS = 300;
const POSTGRES_URL = process.env.QUEUEPORT_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** pgqueue URLs name a variable for the password, never the password: this one, in the open's env only. */
const PASSWORD_ENV = 'QUEUEPORT_BENCH_PGQUEUE_PASSWORD';
const redacted = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

/** The few pg calls the bare side makes; pg is loaded from the ledger package, as ledger-postgres does. */
interface PgPool {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  end(): Promise<void>;
}
type PgModule = {
  Pool: new (config: { connectionString: string; max?: number; connectionTimeoutMillis?: number }) => PgPool;
};

export interface BareTable {
  /** Schema-qualified and quoted. */
  name: string;
  drop(): Promise<void>;
}

export interface PostgresBench extends FreshQueues {
  /** The bare side's Pool, POOL_MAX connections, kept across rounds. */
  pool: PgPool;
  messages: number;
  /** Bytes of one encoded envelope as the adapter stores it. */
  bodyBytes: number;
  detail: string;
  /** A fresh bare table in the bare scratch schema. */
  freshTable(): Promise<BareTable>;
  close(): Promise<void>;
}

/** `postgres://user:pass@host:port/db` as a pgqueue provider URL on `schema`, and the env its password needs. */
function pgqueueProvider(schema: string): { url: string; env: Record<string, string | undefined> } {
  const parsed = new URL(POSTGRES_URL);
  const options = new URLSearchParams({
    database: decodeURIComponent(parsed.pathname.slice(1)) || 'postgres',
    user: decodeURIComponent(parsed.username) || 'postgres',
    schema,
    poolMax: String(POOL_MAX),
  });
  const env: Record<string, string | undefined> = { ...process.env };
  if (parsed.password) {
    options.set('passwordEnv', PASSWORD_ENV);
    env[PASSWORD_ENV] = decodeURIComponent(parsed.password);
  }
  return { url: `pgqueue://${parsed.host || '127.0.0.1:5432'}?${options}`, env };
}

export async function openPostgresBench(quick: boolean): Promise<PostgresBench | { skipped: string }> {
  const pg = driverRequire('pg') as PgModule;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: POOL_MAX, connectionTimeoutMillis: 3000 });
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    return {
      skipped: `PostgreSQL unreachable at ${redacted(POSTGRES_URL)} (${reason}); set QUEUEPORT_POSTGRES_URL`,
    };
  }
  const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const queueSchema = `pgqueue_bench_${tag}`;
  const bareSchema = `pgqueue_bare_${tag}`;
  const provider = pgqueueProvider(queueSchema);
  const registry = new AdapterRegistry([postgresQueueAdapter]);
  let admin: QueueAdmin | undefined;
  const close = async () => {
    await admin?.close().catch(() => undefined);
    for (const schema of [queueSchema, bareSchema]) {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    }
    await pool.end();
  };
  try {
    await pool.query(`CREATE SCHEMA "${bareSchema}"`);
    // The admin's open migrates the queue schema (creating it), once for every round.
    admin = await registry.openAdmin(provider.url, { env: provider.env });
    const opened = admin;
    const freshQueue = async () => {
      const url = await opened.createQueue({
        name: `q-${randomUUID().slice(0, 8)}`,
        settings: { dedupeWindowSeconds: DEDUPE_WINDOW_SECONDS },
      });
      const queue = await registry.openQueue(url, { env: provider.env, ...subjectQueueOptions() });
      return {
        queue,
        drop: async () => {
          await queue.close();
          await opened.deleteQueue(url);
        },
      };
    };
    const freshTable = async (): Promise<BareTable> => {
      const name = `"${bareSchema}"."t_${randomBytes(4).toString('hex')}"`;
      // The driver's columns a bare queue needs, its dedupe key unique, its receive's index.
      await pool.query(`CREATE TABLE ${name} (id BIGSERIAL PRIMARY KEY,
        dedupe_key TEXT COLLATE "C" NOT NULL UNIQUE, visible_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        body TEXT NOT NULL, attributes JSONB NOT NULL, receive_count INTEGER NOT NULL DEFAULT 0, lease_token UUID)`);
      await pool.query(`CREATE INDEX ON ${name} (visible_at, id)`);
      return { name, drop: () => pool.query(`DROP TABLE IF EXISTS ${name}`).then(() => undefined) };
    };
    const settings = await pool.query(
      "SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync",
    );
    const { version, fsync, sync } = settings.rows[0] as Record<string, string>;
    const pgVersion = (driverRequire('pg/package.json') as { version: string }).version;
    const bodyBytes = Buffer.byteLength(encoded('probe', 1)[0]!.body);
    const messages = quick ? 1000 : 10_000;
    return {
      pool,
      messages,
      bodyBytes,
      detail: `${messages} messages of ${bodyBytes} bytes per round, PostgreSQL ${version} at ${redacted(POSTGRES_URL)}, fsync=${fsync}, synchronous_commit=${sync}, pg ${pgVersion}, pools of ${POOL_MAX} on both sides`,
      freshQueue,
      freshTable,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The bare publish: one multi-row INSERT per chunk, a key already stored skipped, as the adapter's dedupe does. */
async function bareInsert(bench: PostgresBench, table: string, chunk: readonly OutgoingMessage[]) {
  await bench.pool.query(
    `INSERT INTO ${table} (dedupe_key, body, attributes)
      SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[]) ON CONFLICT (dedupe_key) DO NOTHING`,
    [chunk.map((m) => m.dedupeKey), chunk.map((m) => m.body), chunk.map((m) => JSON.stringify(m.attributes))],
  );
}

/** The raw side of a publish pair: bare multi-row INSERTs, chunks as large as the adapter's, one at a time. */
export function bareInsertAll(bench: PostgresBench): Side {
  return async (label) => {
    const table = await bench.freshTable();
    const messages = encoded(label, bench.messages);
    try {
      return await timed(() =>
        eachChunk(messages, PUBLISH_CHUNK, 1, (chunk) => bareInsert(bench, table.name, chunk)),
      );
    } finally {
      await table.drop();
    }
  };
}

/**
 * The raw side of a consume pair: `workers` loops, each leasing up to `batch` rows in the
 * statement shape of the driver's receive, then deleting them by id and token (the ack), until
 * the table is drained. Prefilled first, not timed.
 */
export function bareSkipLocked(bench: PostgresBench, workers: number, batch: number): Side {
  return async (label): Promise<Sample> => {
    const table = await bench.freshTable();
    const t = table.name;
    const total = await eachChunk(encoded(label, bench.messages), PUBLISH_CHUNK, POOL_MAX, (chunk) =>
      bareInsert(bench, t, chunk),
    );
    const receive = `WITH picked AS (SELECT id FROM ${t} WHERE visible_at <= now()
        ORDER BY visible_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
      UPDATE ${t} m SET visible_at = now() + $2::int * interval '1 second',
        lease_token = gen_random_uuid(), receive_count = m.receive_count + 1 FROM picked WHERE m.id = picked.id
      RETURNING m.id::text AS id, m.lease_token::text AS token, m.body, m.attributes, m.receive_count`;
    const ack = `DELETE FROM ${t} m USING unnest($1::bigint[], $2::uuid[]) AS r(id, token)
      WHERE m.id = r.id AND m.lease_token = r.token RETURNING m.id::text AS id`;
    try {
      return await timed(async () => {
        let done = 0;
        await Promise.all(
          Array.from({ length: workers }, async () => {
            for (;;) {
              const { rows } = await bench.pool.query(receive, [batch, LEASE_SECONDS]);
              // Empty: every row left is leased by another worker, which acks it.
              if (rows.length === 0) return;
              const acked = await bench.pool.query(ack, [rows.map((r) => r.id), rows.map((r) => r.token)]);
              done += acked.rows.length;
            }
          }),
        );
        if (done !== total) throw new Error(`bare SKIP LOCKED loop acked ${done} of ${total}`);
        return done;
      });
    } finally {
      await table.drop();
    }
  };
}

/** A pair over the shared bench: the sides get it once set up; the scenario skips without PostgreSQL. */
export const postgresPair = (
  text: ScenarioText & OtelAware,
  sides: (bench: PostgresBench) => { subject: Side; baseline: Side },
): PairScenario => benchPair(text, openPostgresBench, (bench) => bench.detail, sides);
