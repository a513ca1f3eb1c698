/**
 * Ledger throughput against the floor of the same database.
 *
 *   node --conditions=source --import tsx scripts/bench/ledger-bench.ts [--json] [--seconds N] [--rounds R]
 *
 * For SQLite (a temp file, WAL) and PostgreSQL (QUEUEPORT_POSTGRES_URL, else
 * postgres://postgres@127.0.0.1:5432/test; a unique schema, dropped at the end) it measures
 *   A. ledger: claim + complete of a distinct event id, one after the other;
 *   B. bare: one INSERT … ON CONFLICT DO NOTHING of a distinct id into a table keyed the same
 *      way, on the same kind of connection (PostgreSQL: a pg Pool, one awaited statement per
 *      iteration; SQLite: better-sqlite3, one autocommit statement per iteration, same pragmas),
 * alternating A B A B … (R rounds, N seconds per side in total) so drift hits both alike, and
 * prints ledger / bare. Progress goes to stderr; the table (or JSON) to stdout.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { payloadDigest } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';

/**
 * The few driver calls the bare loops make. The drivers are dependencies of the ledger package,
 * not of the workspace root, so they are loaded from there (`driverRequire`) and typed here.
 */
interface SqliteHandle {
  pragma(source: string, options?: { simple: boolean }): unknown;
  exec(source: string): void;
  prepare(source: string): { run(...values: unknown[]): unknown; pluck(): { get(): unknown } };
  close(): void;
}
interface PgPool {
  query(config: {
    name?: string;
    text: string;
    values?: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
type SqliteConstructor = new (filename: string) => SqliteHandle;
type PgModule = { Pool: new (config: { connectionString: string; max?: number }) => PgPool };

const driverRequire = createRequire(new URL('../../packages/ledger/package.json', import.meta.url));

const { values: args } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
if (!(SECONDS > 0) || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error('--seconds must be > 0 and --rounds a positive integer');
}
const POSTGRES_URL = process.env.QUEUEPORT_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DIGEST = payloadDigest({ amount: 4200, currency: 'EUR' });
const WARMUP_MS = 300;

interface Side {
  ops: number;
  seconds: number;
  opsPerSecond: number;
}
interface DatabaseResult {
  database: 'sqlite' | 'postgres';
  detail: string;
  ledger: Side;
  bare: Side;
  ratio: number;
}

function progress(message: string): void {
  process.stderr.write(`[ledger-bench] ${message}\n`);
}

/** Runs `step` back to back for `ms`, returning how many completed. Checks the time every step. */
async function runFor(ms: number, step: () => Promise<void> | void): Promise<{ ops: number; ms: number }> {
  const start = performance.now();
  let ops = 0;
  while (performance.now() - start < ms) {
    await step();
    ops++;
  }
  return { ops, ms: performance.now() - start };
}

/** A B A B …: each side gets SECONDS in total, split over ROUNDS. */
async function alternate(
  name: string,
  ledgerStep: () => Promise<void>,
  bareStep: () => Promise<void> | void,
): Promise<{ ledger: Side; bare: Side }> {
  progress(`${name}: warm-up`);
  await runFor(WARMUP_MS, ledgerStep);
  await runFor(WARMUP_MS, bareStep);
  const totals = { ledger: { ops: 0, ms: 0 }, bare: { ops: 0, ms: 0 } };
  const sliceMs = (SECONDS * 1000) / ROUNDS;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [side, step] of [
      ['ledger', ledgerStep],
      ['bare', bareStep],
    ] as const) {
      const { ops, ms } = await runFor(sliceMs, step);
      totals[side].ops += ops;
      totals[side].ms += ms;
      progress(`${name}: round ${round}/${ROUNDS} ${side}: ${Math.round((ops * 1000) / ms)} ops/s`);
    }
  }
  const side = ({ ops, ms }: { ops: number; ms: number }): Side => ({
    ops,
    seconds: ms / 1000,
    opsPerSecond: (ops * 1000) / ms,
  });
  return { ledger: side(totals.ledger), bare: side(totals.bare) };
}

/** Distinct ids for every step, across warm-up and rounds. */
function ids(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}:${next++}`;
}

function ledgerStep(ledger: Ledger, prefix: string) {
  const nextId = ids(prefix);
  return async (): Promise<void> => {
    const eventId = nextId();
    const claimed = await ledger.claim({ eventId, payloadSha256: DIGEST, owner: 'bench', leaseSeconds: 30 });
    if (claimed.status !== 'claimed') throw new Error(`claim of ${eventId} returned ${claimed.status}`);
    await ledger.complete({ eventId, owner: 'bench', outcome: 'http 200' });
  };
}

async function benchSqlite(): Promise<DatabaseResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'queueport-ledger-bench-'));
  const filename = path.join(dir, 'ledger.db');
  progress(`sqlite: ${filename}`);
  const ledger = await openSqliteLedger({ filename });
  const Database = driverRequire('better-sqlite3') as SqliteConstructor;
  const bare = new Database(filename);
  try {
    // The same pragmas the ledger sets on its own connection.
    bare.pragma('busy_timeout = 5000');
    bare.pragma('journal_mode = WAL');
    bare.pragma('synchronous = NORMAL');
    bare.exec(
      'CREATE TABLE bench_bare (event_id TEXT NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT, WITHOUT ROWID',
    );
    const insert = bare.prepare(
      'INSERT INTO bench_bare (event_id, payload_sha256, created_at) VALUES (?, ?, ?) ON CONFLICT (event_id) DO NOTHING',
    );
    const version = String(bare.prepare('SELECT sqlite_version()').pluck().get());
    const nextBareId = ids('bare');
    const result = await alternate('sqlite', ledgerStep(ledger, 'ledger'), () => {
      insert.run(nextBareId(), DIGEST, Date.now());
    });
    return {
      database: 'sqlite',
      detail: `SQLite ${version}, WAL, synchronous=NORMAL, better-sqlite3`,
      ...result,
      ratio: result.ledger.opsPerSecond / result.bare.opsPerSecond,
    };
  } finally {
    await ledger.close();
    bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<DatabaseResult> {
  const schema = `ledger_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  progress(`postgres: ${POSTGRES_URL.replace(/:[^:@/]*@/, ':***@')} schema ${schema}`);
  const pg = driverRequire('pg') as PgModule;
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  let ledger: Ledger | undefined;
  try {
    ledger = await openPostgresLedger({ connectionString: POSTGRES_URL, schema });
    const table = `"${schema}".bench_bare`;
    await admin.query({
      text: `CREATE TABLE ${table} (event_id TEXT COLLATE "C" NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, created_at BIGINT NOT NULL)`,
    });
    const settings = await admin.query({
      text: "SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync",
    });
    const { version, fsync, sync } = settings.rows[0] as Record<string, string>;
    const insert = {
      name: 'bench_bare_insert',
      text: `INSERT INTO ${table} (event_id, payload_sha256, created_at) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING`,
    };
    const nextBareId = ids('bare');
    const result = await alternate('postgres', ledgerStep(ledger, 'ledger'), async () => {
      await admin.query({ ...insert, values: [nextBareId(), DIGEST, Date.now()] });
    });
    return {
      database: 'postgres',
      detail: `PostgreSQL ${version}, fsync=${fsync}, synchronous_commit=${sync}, pg Pool`,
      ...result,
      ratio: result.ledger.opsPerSecond / result.bare.opsPerSecond,
    };
  } finally {
    await ledger?.close();
    await admin.query({ text: `DROP SCHEMA IF EXISTS "${schema}" CASCADE` }).catch(() => undefined);
    await admin.end();
  }
}

function table(results: DatabaseResult[]): string {
  const lines = [
    '| database | ledger claim+complete (ops/s) | bare INSERT … ON CONFLICT (ops/s) | ledger / bare |',
    '|---|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.database} | ${Math.round(r.ledger.opsPerSecond)} | ${Math.round(r.bare.opsPerSecond)} | ${r.ratio.toFixed(2)} |`,
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const machine = {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
  progress(
    `${machine.cpus} cpus (${machine.cpu}), node ${machine.node}; ${SECONDS}s per side in ${ROUNDS} rounds`,
  );
  const results = [await benchSqlite(), await benchPostgres()];
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ machine, seconds: SECONDS, rounds: ROUNDS, results }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(`${table(results)}\n\n`);
  for (const r of results) process.stdout.write(`${r.database}: ${r.detail}\n`);
  process.stdout.write(`machine: ${machine.cpus} cpus, ${machine.cpu}, node ${machine.node}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[ledger-bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
