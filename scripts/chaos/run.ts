/**
 * The chaos campaign: every adapter with both ledgers, real processes killed mid-delivery, every
 * event accounted for by the checker.
 *
 *   pnpm chaos                 the full campaign (2,000 events and 30 kills per configuration);
 *                              writes scripts/chaos/results.json and RELIABILITY.md
 *   pnpm chaos --reduced       a few hundred events and a handful of kills per configuration, for
 *                              CI; writes nothing
 *   [--only bullmq/sqlite,…]   some configurations   [--json]   the results on stdout
 *
 * Exits 1 when any configuration did not hold. Redis (AOF, fsync always) and a PostgreSQL cluster
 * (durable commits) are the campaign's own, so that it may crash them; SQS comes from
 * scripts/test-services (moto, started where none runs); the Infrai simulator runs as a process of
 * its own and takes its faults on stdin.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { toBiomeJson } from '../json/biome-layout';
import { ensureServices } from '../test-services/ensure-services';
import { startPostgresCluster } from '../test-services/postgres-cluster';
import { startPrivateRedis } from '../test-services/private-redis';
import {
  type AdapterName,
  type LedgerName,
  type RunResult,
  runConfiguration,
  type Services,
} from './campaign';
import type { Violations } from './checker';
import { startChild } from './child';
import { PLANTED_FAULTS, type PlantedFault } from './planted-faults';
import { type CampaignResults, renderReliability } from './report';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    reduced: { type: 'boolean', default: false },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

// An environment fault after every faultEvery-th kill: in the full campaign each of a
// configuration's faults at least twice, in the reduced one each at least once.
const FULL = { events: 2000, kills: 30, workers: 4, faultEvery: 5 };
const REDUCED = { events: 200, kills: 3, workers: 3, faultEvery: 1 };
const ADAPTERS: readonly AdapterName[] = ['bullmq', 'sqs', 'infrai'];
/** Receiver faults beside the kills, in the full campaign: one configuration each. */
const RECEIVER_FAULTS: readonly {
  adapter: AdapterName;
  ledger: LedgerName;
  receiver: { lateFirstMs?: number; holdMs?: number };
}[] = [
  { adapter: 'bullmq', ledger: 'postgres', receiver: { lateFirstMs: 1500 } },
  { adapter: 'infrai', ledger: 'sqlite', receiver: { holdMs: 300 } },
];
const LEDGERS: readonly LedgerName[] = ['sqlite', 'postgres'];

const progress = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const size = args.reduced ? REDUCED : FULL;
const wanted = args.only?.split(',').map((name) => name.trim());
const configurations: {
  adapter: AdapterName;
  ledger: LedgerName;
  receiver?: { lateFirstMs?: number; holdMs?: number };
}[] = [
  ...ADAPTERS.flatMap((adapter) => LEDGERS.map((ledger) => ({ adapter, ledger }))),
  ...(args.reduced ? [] : RECEIVER_FAULTS),
].filter(({ adapter, ledger }) => !wanted || wanted.includes(`${adapter}/${ledger}`));

const ensured = await ensureServices({ need: ['sqs'], log: progress });
const redis = await startPrivateRedis();
const postgres = await startPostgresCluster(progress, { durable: true });
const simulator = startChild('scripts/bench/shared/infrai-simulator-process.ts', {}, {});
/**
 * What each planted fault must show up as: the proof that the checker sees it. A forgotten claim
 * shows as a second effect nothing flagged or, where the event never settled, as the ledger
 * disagreeing with the receiver.
 */
/** The receiver fault that opens each planted fault's window wide, so that every run shows it. */
const PLANTED_RECEIVER: Record<PlantedFault, { lateFirstMs?: number; holdMs?: number }> = {
  // Requests in flight at a kill are dropped, so an event acked before them is gone.
  'ack-before-send': { holdMs: 800 },
  // Each first attempt takes effect but times out, so every event is tried again.
  'fresh-key': { lateFirstMs: 1500 },
  'forget-claim': {},
};
const EXPECTED: Record<PlantedFault, readonly (keyof Violations)[]> = {
  'ack-before-send': ['lost'],
  'fresh-key': ['duplicated'],
  'forget-claim': ['unflagged', 'disagreements'],
};
/** A planted run is not expected to settle: a short wait is enough to see what it broke. */
const PLANTED = {
  adapter: 'bullmq',
  ledger: 'sqlite',
  events: 60,
  kills: 3,
  workers: 3,
  settleBoundMs: 10_000,
} as const;

const runs: RunResult[] = [];
const planted: CampaignResults['planted'] = [];
try {
  const { services: found } = ensured;
  const services: Services = {
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    postgresUrl: postgres.url,
    ...(found.sqsEndpoint ? { sqsEndpoint: found.sqsEndpoint } : {}),
    infrai: await simulator.ready<{ url: string; apiKey: string }>(30_000),
    redis,
    postgres,
    infraiFault: (fault) => simulator.send(`fault ${JSON.stringify(fault)}`),
  };
  for (const [index, { adapter, ledger, receiver }] of configurations.entries()) {
    if (adapter === 'sqs' && !services.sqsEndpoint) {
      progress(`sqs/${ledger}: skipped, no SQS server (${found.sqsUnavailable ?? 'none answered'})`);
      continue;
    }
    progress(`${adapter}/${ledger}: ${size.events} events, ${size.kills} kills, ${size.workers} workers`);
    const run = await runConfiguration(
      { adapter, ledger, ...size, duplicateEvery: 20, seed: 1000 + index, ...(receiver ? { receiver } : {}) },
      services,
      progress,
    );
    runs.push(run);
    progress(
      `${adapter}/${ledger}: ${run.held ? 'held' : 'DID NOT HOLD'}: lost ${run.lost}, duplicated ${run.duplicated}, unflagged ${run.unflagged}, disagreements ${run.disagreements}, ambiguous ${run.ambiguous}, ${run.kills} kills, ${run.seconds} s`,
    );
  }
  if (!wanted) {
    for (const [index, fault] of PLANTED_FAULTS.entries()) {
      const { adapter, ledger, ...sizes } = PLANTED;
      const reportedAs = EXPECTED[fault];
      progress(`planted ${fault} (${adapter}/${ledger}): must be reported as ${reportedAs.join(' or ')}`);
      const run = await runConfiguration(
        {
          adapter,
          ledger,
          ...sizes,
          duplicateEvery: 20,
          seed: 2000 + index,
          plant: fault,
          receiver: PLANTED_RECEIVER[fault],
        },
        services,
        progress,
      );
      const count = reportedAs.reduce((sum, kind) => sum + run[kind], 0);
      planted.push({ fault, reportedAs, count, caught: count > 0 });
      progress(
        `planted ${fault}: ${count > 0 ? 'caught' : 'MISSED'}, ${reportedAs.map((kind) => `${kind} ${run[kind]}`).join(', ')}`,
      );
    }
  }
} finally {
  await simulator.kill();
  await redis.dispose();
  await postgres.stop();
  await ensured.stop();
}

const results: CampaignResults = {
  date: new Date().toISOString(),
  machine: { cpus: availableParallelism(), node: process.version },
  runs,
  planted,
};
if (!args.reduced && !wanted) {
  writeFileSync(path.join(root, 'scripts/chaos/results.json'), toBiomeJson(results));
  writeFileSync(path.join(root, 'RELIABILITY.md'), renderReliability(results));
  progress('wrote scripts/chaos/results.json and RELIABILITY.md');
}
if (args.json) process.stdout.write(toBiomeJson(results));
const failed = runs.filter((run) => !run.held);
const missed = planted.filter((entry) => !entry.caught);
if (failed.length > 0)
  progress(`did not hold: ${failed.map((run) => `${run.adapter}/${run.ledger}`).join(', ')}`);
if (missed.length > 0) progress(`the checker missed: ${missed.map((entry) => entry.fault).join(', ')}`);
if (failed.length > 0 || missed.length > 0) process.exit(1);
