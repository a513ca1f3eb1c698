import { randomBytes } from 'node:crypto';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import type { PairScenario } from '../runner';
import { claimAndComplete, DIGEST, forSlice, ids, LEDGER_CONCURRENCY, sliceMs } from '../shared/ledger-loop';
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

interface PostgresBaseline {
  name: string;
  description: string;
  baseline: string;
  atLeast: number;
  remains: string;
  /** Bare loops at once, each on its own pool connection. */
  loops: number;
}

/** The subject, the same in both PostgreSQL scenarios: grouped claim + complete from 16 callers. */
function ledgerPostgresScenario(spec: PostgresBaseline): PairScenario {
  return {
    kind: 'pair',
    name: spec.name,
    description: spec.description,
    subject: `ledger claim + complete of distinct ids, ${LEDGER_CONCURRENCY} callers through group commit (PostgreSQL)`,
    baseline: spec.baseline,
    targets: [{ metric: 'ratio', atLeast: spec.atLeast }],
    remains: spec.remains,
    async open({ quick }) {
      const pg = driverRequire('pg') as PgModule;
      const admin = new pg.Pool({
        connectionString: POSTGRES_URL,
        max: spec.loops,
        connectionTimeoutMillis: 3000,
      });
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
          subject: forSlice(ms, claimAndComplete(ledger), LEDGER_CONCURRENCY),
          baseline: forSlice(
            ms,
            async () => {
              await admin.query({ ...insert, values: [nextBareId(), DIGEST, Date.now()] });
            },
            spec.loops,
          ),
          close: dropSchema,
        };
      } catch (error) {
        await dropSchema();
        throw error;
      }
    },
  };
}

const GROUPED =
  'group commit sends the fresh claims of a turn as one INSERT … SELECT FROM unnest and their completions as one prepared call of ledger_settle_batch (an UPDATE … FROM unnest with its plan pinned to the primary key), one commit each, with up to 4 statements of a kind on the wire; ';

export const ledgerPostgres = ledgerPostgresScenario({
  name: 'ledger-postgres',
  description: `The PostgreSQL ledger's claim + complete of distinct event ids from ${LEDGER_CONCURRENCY} concurrent callers beside one bare INSERT … ON CONFLICT DO NOTHING loop, one awaited statement at a time, in a schema of its own (dropped at the end).`,
  baseline:
    'bare INSERT … ON CONFLICT DO NOTHING of a distinct id, one awaited statement at a time (pg Pool)',
  atLeast: 3.0,
  loops: 1,
  remains: `${GROUPED}what remains is each batch's round trips and commits (one fsync each) and parsing the settled rows returned.`,
});

export const ledgerPostgresConcurrent = ledgerPostgresScenario({
  name: 'ledger-postgres-concurrent',
  description: `The same grouped claim + complete beside ${LEDGER_CONCURRENCY} concurrent loops of one bare single-row upsert on a pool of ${LEDGER_CONCURRENCY} connections, so the server's own grouping of concurrent commits is in the baseline.`,
  baseline: `${LEDGER_CONCURRENCY} concurrent loops of a bare INSERT … ON CONFLICT DO NOTHING, pg Pool of ${LEDGER_CONCURRENCY}`,
  atLeast: 1.5,
  loops: LEDGER_CONCURRENCY,
  remains: `${GROUPED}each of the 16 callers has one call outstanding and waits for two durable commits per event (the claim before its POST, the completion before its ack), the baseline's callers for one. A grouped round of 16 costs about 1.3 ms against 0.4–0.7 ms for a one-row commit on this disk: the server's execution of 16 rows and, on the critical path between rounds, about 35 µs of Node CPU per event (pg's encoding of the arrays and parsing of the 12 columns returned, then the records). What would remove more: settles that return only what the record cannot be built from, and a round split across two connections so the server executes it on both cores.`,
});
