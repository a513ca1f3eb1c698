import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { describeAttemptContract, describeLedgerContract, type OpenLedger } from '@queueport/ledger/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from '../src/migrations/sqlite';
import type { ClaimRound, WorkerInput, WorkerReport } from './sqlite-claim-worker';

const dir = mkdtempSync(path.join(tmpdir(), 'queueport-ledger-sqlite-'));
let files = 0;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function appliedMigrations(filename: string): number[] {
  const db = new Database(filename, { readonly: true });
  try {
    return db
      .prepare('SELECT version FROM ledger_schema_migrations ORDER BY version')
      .pluck()
      .all() as number[];
  } finally {
    db.close();
  }
}

const openSqlite: OpenLedger = async (clock, options) => {
  const filename = path.join(dir, `ledger-${++files}.db`);
  const ledger = await openSqliteLedger({ filename, clock, ...options });
  const opened: Ledger[] = [ledger];
  return {
    ledger,
    reopen: async () => {
      const another = await openSqliteLedger({ filename, clock });
      opened.push(another);
      return another;
    },
    appliedMigrations: async () => appliedMigrations(filename),
    cleanup: async () => {
      for (const each of opened) await each.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(filename + suffix, { force: true });
    },
  };
};

describeLedgerContract('sqlite', openSqlite);
describeAttemptContract('sqlite', openSqlite);

const WORKERS = 8;

/**
 * The worker runs the package's TypeScript sources. `execArgv: ['--import', 'tsx']` does not
 * reach a worker's own entry module on Node 20, so a two-line bootstrap registers tsx's loader in
 * the worker and then imports the entry; `--conditions=@queueport/source` makes @queueport/*
 * resolve to src/.
 */
function tsxEsmApi(): string {
  // The ESM entry whatever conditions this process runs with: the CommonJS one cannot register.
  const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(path.join(path.dirname(manifestPath), manifest.exports['./esm/api']!.import.default))
    .href;
}

function tsWorker(entry: URL, workerData: unknown): Worker {
  const tsxApi = tsxEsmApi();
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, execArgv: ['--conditions=@queueport/source'] });
}

/** Runs WORKERS threads, each with its own connection to `filename`, through the same claim rounds. */
async function raceInWorkers(filename: string, rounds: readonly ClaimRound[]): Promise<WorkerReport[]> {
  const barrier = new Int32Array(new SharedArrayBuffer(4 * (rounds.length + 1)));
  const workers = Array.from({ length: WORKERS }, (_, index) => {
    const workerData: WorkerInput = { filename, owner: `worker-${index}`, rounds, barrier, parties: WORKERS };
    return tsWorker(new URL('./sqlite-claim-worker.ts', import.meta.url), workerData);
  });
  return Promise.all(
    workers.map(
      (worker) =>
        new Promise<WorkerReport>((resolve, reject) => {
          let report: WorkerReport | undefined;
          worker.once('message', (message: WorkerReport) => {
            report = message;
          });
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (report?.error) reject(new Error(`worker failed: ${report.error}`));
            else if (report) resolve(report);
            else reject(new Error(`worker exited with code ${code} and no report`));
          });
        }),
    ),
  );
}

describe('SqliteLedger under concurrency', () => {
  it('concurrent claims of one id from many connections: exactly one wins', async () => {
    const filename = path.join(dir, 'race.db');
    const t0 = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 25 }, (_, i) => `race-${i + 1}`);
    const rounds: ClaimRound[] = [
      // New ids: the insert path.
      ...ids.map((eventId) => ({ eventId, now: t0 })),
      // The same ids once every lease has lapsed: the locked re-take path.
      ...ids.map((eventId) => ({ eventId, now: t0 + 3_600_000 })),
    ];
    // The workers also open (and migrate) a brand-new file at the same moment.
    const reports = await raceInWorkers(filename, rounds);

    rounds.forEach((round, index) => {
      const statuses = reports.map((report) => report.results[index]);
      expect(
        statuses.filter((status) => status === 'claimed'),
        `${round.eventId} at ${round.now}`,
      ).toHaveLength(1);
      expect(statuses.filter((status) => status === 'busy')).toHaveLength(WORKERS - 1);
    });
    const ledger = await openSqliteLedger({ filename, clock: new VirtualClock(t0 + 3_600_000) });
    try {
      for (const eventId of ids) {
        expect(await ledger.get(eventId)).toMatchObject({
          attempts: 2,
          ambiguous: true,
          state: 'processing',
        });
      }
      expect(appliedMigrations(filename)).toEqual(
        SQLITE_MIGRATIONS.map((m) => m.version).sort((a, b) => a - b),
      );
    } finally {
      await ledger.close();
    }
  });

  it('stores no payload: the table has only the digest and metadata', () => {
    const filename = path.join(dir, 'columns.db');
    return openSqliteLedger({ filename }).then(async (ledger) => {
      await ledger.claim({
        eventId: 'e',
        payloadSha256: payloadDigest({ secret: 'nope' }),
        owner: 'a',
        leaseSeconds: 1,
      });
      await ledger.close();
      const db = new Database(filename, { readonly: true });
      try {
        const columns = db.prepare("SELECT name FROM pragma_table_info('ledger_events')").pluck().all();
        expect(columns).not.toContain('payload');
        expect(JSON.stringify(db.prepare('SELECT * FROM ledger_events').all())).not.toContain('nope');
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
      }
    });
  });
});
