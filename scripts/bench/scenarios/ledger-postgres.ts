import { randomBytes } from 'node:crypto';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import type { PairScenario } from '../runner';
import { claimAndComplete, DIGEST, forSlice, ids, sliceMs } from '../shared/ledger-loop';
import { driverRequire } from '../shared/sqlite';

/** The few pg calls the bare loop makes; pg is the ledger package's dependency, loaded from there. */
interface PgPool {
  query(config: {
    name?: string;
    text: string;
    values?: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
type PgModule = {
  Pool: new (config: { connectionString: string; max?: number; connectionTimeoutMillis?: number }) => PgPool;
};

const POSTGRES_URL = process.env.QUEUEPORT_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redacted = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

export const ledgerPostgres: PairScenario = {
  kind: 'pair',
  name: 'ledger-postgres',
  description:
    "The PostgreSQL ledger's claim + complete of a distinct event id beside one bare INSERT … ON CONFLICT DO NOTHING on a pg Pool, in a schema of its own (dropped at the end). Two commits against one, so about 0.5 would mean the ledger costs nothing beyond its commits.",
  subject: 'ledger claim + complete of a distinct id (PostgreSQL)',
  baseline: 'bare INSERT … ON CONFLICT DO NOTHING of a distinct id, one awaited statement (pg Pool)',
  targets: [{ metric: 'ratio', atLeast: 0.45 }],
  remains:
    'claim and settle are already one prepared statement each, so a pair costs two round trips and two commits against the bare loop’s one: the ceiling is 0.5. ' +
    'The rest is the server’s work on the wide row and its three partial indexes (the same cost as in SQLite: see ledger-sqlite), plus parsing the row that settle returns. ' +
    'This run does not break it down further. The same split of hot and terminal rows would remove most of it.',
  async open({ quick }) {
    const pg = driverRequire('pg') as PgModule;
    const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1, connectionTimeoutMillis: 3000 });
    try {
      await admin.query({ text: 'SELECT 1' });
    } catch (error) {
      await admin.end().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      return {
        skipped: `PostgreSQL unreachable at ${redacted(POSTGRES_URL)} (${reason}); set QUEUEPORT_POSTGRES_URL`,
      };
    }
    const schema = `ledger_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
    let ledger: Ledger | undefined;
    const dropSchema = async () => {
      await ledger?.close();
      await admin.query({ text: `DROP SCHEMA IF EXISTS "${schema}" CASCADE` }).catch(() => undefined);
      await admin.end();
    };
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
      const ms = sliceMs(quick);
      return {
        detail: `PostgreSQL ${version} at ${redacted(POSTGRES_URL)}, fsync=${fsync}, synchronous_commit=${sync}, pg Pool; ${ms} ms per side per round`,
        subject: forSlice(ms, claimAndComplete(ledger)),
        baseline: forSlice(ms, async () => {
          await admin.query({ ...insert, values: [nextBareId(), DIGEST, Date.now()] });
        }),
        close: dropSchema,
      };
    } catch (error) {
      await dropSchema();
      throw error;
    }
  },
};
