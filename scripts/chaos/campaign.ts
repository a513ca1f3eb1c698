/**
 * One configuration of the campaign: a receiver process, worker processes over one adapter and
 * one ledger, a producer publishing distinct events (some of them twice, on purpose), and a
 * controller that SIGKILLs a random worker at random moments while deliveries are under way and
 * starts another in its place. When every kill is done and the events have settled (or the bound
 * has passed), the receiver's record and the ledger are handed to the checker.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bullmqAdapter } from '@queueport/bullmq';
import { AdapterRegistry, openQueue } from '@queueport/core';
import { infraiAdapter } from '@queueport/infrai';
import type { InfraiFault } from '@queueport/infrai/testing';
import type { Ledger, LedgerRecord } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { sqsAdapter } from '@queueport/sqs';
import { buildReconciliationReport } from '@queueport/webhook';
import { type ChaosRecords, checkRecords, type ReceivedRequest, type Verdict } from './checker';
import { type CampaignChild, startChild } from './child';
import { type EnvironmentFault, environmentFaults, type Restartable } from './environment-faults';
import type { PlantedFault } from './planted-faults';

export type AdapterName = 'bullmq' | 'sqs' | 'infrai';
export type LedgerName = 'sqlite' | 'postgres';

export interface Configuration {
  adapter: AdapterName;
  ledger: LedgerName;
  events: number;
  kills: number;
  workers: number;
  /** Every n-th event is published a second time, as a producer retrying its publish would. */
  duplicateEvery: number;
  seed: number;
  /** A fault planted in every worker, to prove the checker reports it. */
  plant?: PlantedFault;
  /** How long to wait for the events to settle after the last kill; default 150 ms an event, at least 120 s. */
  settleBoundMs?: number;
  /** Receiver faults: see receiver-process.ts. */
  receiver?: { lateFirstMs?: number; holdMs?: number };
  /** After every n-th kill, the next of the environment faults that touch this configuration. */
  faultEvery?: number;
}

/** Where the services are: the campaign talks only to loopback. */
export interface Services {
  redisUrl: string;
  postgresUrl: string;
  sqsEndpoint?: string;
  infrai?: { url: string; apiKey: string };
  /** The campaign's own servers, which it may crash; absent, that fault is not run. */
  redis?: Restartable;
  postgres?: Restartable;
  infraiFault?: (fault: InfraiFault) => void;
}

export interface RunResult {
  adapter: AdapterName;
  ledger: LedgerName;
  events: number;
  kills: number;
  restarts: number;
  faults: string[];
  /** Each environment fault injected, by what it does: how many times. */
  environmentFaults: Record<string, number>;
  lost: number;
  duplicated: number;
  ambiguous: number;
  unflagged: number;
  disagreements: number;
  unknown: number;
  classes: Verdict['classes'];
  /** The dead-lettered events' outcomes, counted. */
  failures: Record<string, number>;
  examples: Verdict['examples'];
  held: boolean;
  /** All of it settled before the bound. */
  settled: boolean;
  seconds: number;
}

const LEASE_SECONDS = 3;
const REQUEST_TIMEOUT_MS = 1000;
const WORKER_CONCURRENCY = 8;
/** tsx compiling the workspace sources on a busy machine. */
const START_BOUND_MS = 30_000;
/**
 * After the last kill: leases lapse, stalled jobs return, every event is delivered. Scaled by the
 * events left: moto, single-threaded beside four workers on two cores, delivers a full SQS run's
 * backlog at about 15 events/s after its kills (measured: 2,000 events took about 160 s).
 */
const settleBoundMs = (events: number) => Math.max(120_000, events * 150);
const SETTLE_PROGRESS_MS = 30_000;
const KILL_GAP_MS = { min: 150, max: 600 };
const POLL_MS = 250;
const LIST_PAGE = 1000;
const PUBLISH_BATCH = 10;
// Twice what the kills alone need: an outage (Redis restarted, the receiver down) holds deliveries
// back, and the kills after it must still meet events on their way (CI once ended a run at 2 of 3).
const PUBLISH_SPAN_FACTOR = 4;
/** One batch may go on failing this long (a broker restart, a burst of 503s) before the run fails. */
const PUBLISH_BOUND_MS = 60_000;

const registry = new AdapterRegistry([bullmqAdapter, sqsAdapter, infraiAdapter]);

/** mulberry32: a seeded sequence, so a run's kill schedule can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function providerUrl(adapter: AdapterName, services: Services, id: string): string {
  if (adapter === 'bullmq') {
    const redis = new URL(services.redisUrl);
    const url = new URL(`bullmq://${redis.host}`);
    if (redis.pathname.length > 1) url.searchParams.set('db', redis.pathname.slice(1));
    url.searchParams.set('prefix', `qp-chaos-${id}`);
    // A killed worker's jobs come back this soon after its lock ends.
    url.searchParams.set('stalledIntervalMs', '250');
    return url.href;
  }
  if (adapter === 'sqs') {
    if (!services.sqsEndpoint) throw new Error('no SQS endpoint');
    return `sqs://us-east-1?endpoint=${encodeURIComponent(services.sqsEndpoint)}`;
  }
  if (!services.infrai) throw new Error('no Infrai simulator');
  return `infrai://${new URL(services.infrai.url).host}?tls=false`;
}

function adapterEnv(services: Services): NodeJS.ProcessEnv {
  return {
    QUEUEPORT_POSTGRES_URL: services.postgresUrl,
    AWS_ACCESS_KEY_ID: 'chaos',
    AWS_SECRET_ACCESS_KEY: 'chaos',
    AWS_REGION: 'us-east-1',
    ...(services.infrai ? { INFRAI_API_KEY: services.infrai.apiKey } : {}),
  };
}

async function readLedger(ledger: Ledger): Promise<LedgerRecord[]> {
  const rows: LedgerRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await ledger.list({ limit: LIST_PAGE, ...(after === undefined ? {} : { after }) });
    rows.push(...page);
    if (page.length < LIST_PAGE) return rows;
    after = page[page.length - 1]!.eventId;
  }
}

function readRequests(file: string): ReceivedRequest[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // A torn last line cannot happen (each is fsynced whole before the next), but a partial read can.
  return text
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as ReceivedRequest);
}

export async function runConfiguration(
  config: Configuration,
  services: Services,
  progress: (line: string) => void,
): Promise<RunResult> {
  const started = performance.now();
  const id = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'qp-chaos-'));
  const requestLog = path.join(dir, 'requests.jsonl');
  const env = {
    ...adapterEnv(services),
    QUEUEPORT_CHAOS_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
  };
  // The controller's own processes: what it opens, it reads the same way.
  Object.assign(process.env, adapterEnv(services));
  const children = new Set<CampaignChild>();
  const schema = `chaos_${id.replace('-', '_')}`;
  const ledgerFlag =
    config.ledger === 'sqlite' ? `sqlite:${path.join(dir, 'ledger.db')}` : `postgres:${schema}`;
  const openLedger = () =>
    config.ledger === 'sqlite'
      ? openSqliteLedger({ filename: path.join(dir, 'ledger.db') })
      : openPostgresLedger({ connectionString: services.postgresUrl, schema });
  const provider = providerUrl(config.adapter, services, id);
  const admin = await registry.openAdmin(provider);
  let queueUrl: string | undefined;
  const ledger = await openLedger();
  try {
    queueUrl = await admin.createQueue({ name: `chaos-${id}` });
    const startReceiver = async (port: number) => {
      const child = startChild(
        'scripts/chaos/receiver-process.ts',
        {
          log: requestLog,
          port,
          'late-first-ms': config.receiver?.lateFirstMs ?? 0,
          'hold-ms': config.receiver?.holdMs ?? 0,
        },
        {},
      );
      children.add(child);
      return { child, url: (await child.ready<{ url: string }>(START_BOUND_MS)).url };
    };
    let receiver = await startReceiver(0);
    const receiverUrl = receiver.url;
    const receiverPort = Number(new URL(receiverUrl).port);
    const faults: EnvironmentFault[] = config.faultEvery
      ? environmentFaults({
          adapter: config.adapter,
          ledger: config.ledger,
          ...(services.redis ? { redis: services.redis } : {}),
          ...(services.postgres ? { postgres: services.postgres } : {}),
          ...(services.infraiFault ? { infrai: services.infraiFault } : {}),
          receiver: {
            crash: async () => {
              await receiver.child.kill();
              children.delete(receiver.child);
            },
            start: async () => {
              receiver = await startReceiver(receiverPort);
            },
          },
        })
      : [];
    const injected: Record<string, number> = Object.fromEntries(faults.map((fault) => [fault.what, 0]));

    const eventIds = Array.from({ length: config.events }, (_, i) => `chaos_${id}_${i}:v1`);
    const envelopes = eventIds.map((eventId, i) => ({
      envelope: { event_id: eventId, type: 'chaos.event', payload: { n: i } },
    }));
    const twice = envelopes.filter((_, i) => i % config.duplicateEvery === 0);
    // Spread over the kill schedule, so that kills land while events are still arriving.
    const batches = chunks([...envelopes, ...twice], PUBLISH_BATCH);
    // Long enough for every kill at the longest gap, with room for the replacements' start.
    const pauseMs = (config.kills * KILL_GAP_MS.max * PUBLISH_SPAN_FACTOR) / batches.length;
    let published = false;
    const produce = async () => {
      const producer = await openQueue(queueUrl!, { adapters: [bullmqAdapter, sqsAdapter, infraiAdapter] });
      try {
        for (const batch of batches) {
          // As a producer would: the same event ids again until accepted; the queue absorbs repeats.
          const deadline = performance.now() + PUBLISH_BOUND_MS;
          for (;;) {
            try {
              await producer.publishBatch(batch);
              break;
            } catch (error) {
              if (performance.now() > deadline) throw error;
              await sleep(POLL_MS);
            }
          }
          await sleep(pauseMs);
        }
      } finally {
        published = true;
        await producer.close();
      }
    };
    const delivered = () =>
      new Set(
        readRequests(requestLog)
          .filter((request) => request.status >= 200 && request.status < 300)
          .map((request) => request.eventId),
      ).size >= config.events;

    const startWorker = () => {
      const child = startChild(
        'scripts/chaos/worker-process.ts',
        {
          queue: queueUrl!,
          ledger: ledgerFlag,
          receiver: receiverUrl,
          concurrency: WORKER_CONCURRENCY,
          'lease-seconds': LEASE_SECONDS,
          'timeout-ms': REQUEST_TIMEOUT_MS,
          ...(config.plant ? { plant: config.plant } : {}),
        },
        env,
      );
      children.add(child);
      const worker = { child, ready: false, started: child.ready(START_BOUND_MS) };
      worker.started.then(
        () => {
          worker.ready = true;
        },
        (error: unknown) => {
          if (!stopping)
            progress(`${config.adapter}/${config.ledger}: a worker did not start: ${String(error)}`);
        },
      );
      return worker;
    };
    let stopping = false;
    const workers = Array.from({ length: config.workers }, startWorker);
    await Promise.all(workers.map((worker) => worker.started));
    // Published only once the workers deliver, so the kills meet the events on their way.
    const producing = produce();
    const next = random(config.seed);
    let kills = 0;
    let restarts = 0;
    let seen = readRequests(requestLog).length;
    let killsUntil = performance.now() + config.kills * KILL_GAP_MS.max * 4 + START_BOUND_MS;
    // Bounded: once everything is published and delivered there is nothing left to interrupt.
    while (kills < config.kills && !(published && delivered()) && performance.now() < killsUntil) {
      await sleep(KILL_GAP_MS.min + next() * (KILL_GAP_MS.max - KILL_GAP_MS.min));
      const now = readRequests(requestLog).length;
      // Only while deliveries are under way, and only a worker that is delivering.
      const ready = workers.map((worker, index) => ({ worker, index })).filter(({ worker }) => worker.ready);
      if ((now === seen && now > 0) || ready.length === 0) continue;
      seen = now;
      const { worker: victim, index } = ready[Math.floor(next() * ready.length)]!;
      await victim.child.kill();
      children.delete(victim.child);
      kills++;
      // Its replacement starts at once; it is a candidate once it delivers.
      workers[index] = startWorker();
      restarts++;
      if (config.faultEvery && faults.length > 0 && kills % config.faultEvery === 0) {
        const fault = faults[(kills / config.faultEvery - 1) % faults.length]!;
        const began = performance.now();
        progress(`${config.adapter}/${config.ledger}: after kill ${kills}, ${fault.what}`);
        await fault.inject();
        injected[fault.what]!++;
        // The outage is not the kills' time: the bound moves by what it took.
        killsUntil += performance.now() - began;
      }
      if (kills % 10 === 0) progress(`${config.adapter}/${config.ledger}: ${kills} kills, ${now} requests`);
    }
    await producing;
    progress(
      `${config.adapter}/${config.ledger}: published ${config.events} events (${batches.flat().length} publishes), ${kills} kills`,
    );

    const deadline = performance.now() + (config.settleBoundMs ?? settleBoundMs(config.events));
    let settled = false;
    let shown = performance.now();
    while (performance.now() < deadline) {
      if (performance.now() - shown > SETTLE_PROGRESS_MS) {
        shown = performance.now();
        const answered = new Set(readRequests(requestLog).map((request) => request.eventId)).size;
        progress(
          `${config.adapter}/${config.ledger}: settling, ${answered} of ${config.events} events reached`,
        );
      }
      // A first query after PostgreSQL's restart may meet a connection that died with it.
      const open = await ledger.list({ limit: 1, state: 'processing' }).catch(() => [undefined]);
      if (open.length === 0 && delivered()) {
        settled = true;
        break;
      }
      await sleep(POLL_MS);
    }
    stopping = true;
    for (const worker of workers) await worker.child.kill();

    const rows = await readLedger(ledger);
    // What `queueport reconcile` would hand a person: stuck rows and the ambiguous ones.
    const report = await buildReconciliationReport(ledger, { olderThanSeconds: LEASE_SECONDS * 2 });
    const records: ChaosRecords = {
      published: eventIds.map((eventId, i) => ({
        eventId,
        publishes: i % config.duplicateEvery === 0 ? 2 : 1,
      })),
      requests: readRequests(requestLog),
      ledger: rows.map((row) => ({ eventId: row.eventId, state: row.state, ambiguous: row.ambiguous })),
      deadLetters: rows
        .filter((row) => row.state === 'failed')
        .map((row) => ({ eventId: row.eventId, reason: row.lastOutcome ?? '' })),
      reconciled: [...report.stale, ...report.ambiguous].map((row) => row.eventId),
    };
    const verdict = checkRecords(records);
    if (verdict.lost > 0) {
      // Where the lost ones are, for whoever reads a failed run: the ledger's row, the queue's state.
      const byId = new Map(rows.map((row) => [row.eventId, row]));
      const stats = await admin.stats(queueUrl).catch((error: unknown) => String(error));
      const dead = admin.listDeadLetters
        ? await admin.listDeadLetters(queueUrl, { limit: 100 }).catch(() => [])
        : [];
      for (const eventId of verdict.examples.lost ?? []) {
        const row = byId.get(eventId);
        const letter = dead.find((entry) => entry.eventId === eventId);
        progress(
          `${config.adapter}/${config.ledger}: lost ${eventId}: ledger ${row ? JSON.stringify({ state: row.state, attempts: row.attempts, lastOutcome: row.lastOutcome, leaseUntil: row.leaseUntil, retryAt: row.retryAt }) : 'no row'}; ${letter ? `in the provider's dead letters after ${letter.receiveCount} receives` : 'not in the dead letters'}; queue ${JSON.stringify(stats)}`,
        );
      }
    }
    const failures: Record<string, number> = {};
    for (const letter of records.deadLetters) failures[letter.reason] = (failures[letter.reason] ?? 0) + 1;
    return {
      failures,
      adapter: config.adapter,
      ledger: config.ledger,
      events: config.events,
      kills,
      restarts,
      faults: [
        'SIGKILL of a worker process while deliveries are in flight',
        ...(config.receiver?.lateFirstMs
          ? [
              `the receiver answers each event's first request ${config.receiver.lateFirstMs} ms late, past the sender's ${REQUEST_TIMEOUT_MS} ms timeout`,
            ]
          : []),
        ...(config.receiver?.holdMs
          ? [
              `the receiver holds each request ${config.receiver.holdMs} ms and drops it when its worker is gone`,
            ]
          : []),
        ...faults.map((fault) => fault.what),
        ...(config.plant ? [`planted: ${config.plant}`] : []),
      ],
      environmentFaults: injected,
      lost: verdict.lost,
      duplicated: verdict.duplicated,
      ambiguous: verdict.ambiguous,
      unflagged: verdict.unflagged,
      disagreements: verdict.disagreements,
      unknown: verdict.unknown,
      classes: verdict.classes,
      examples: verdict.examples,
      // A run that settled late, did fewer kills than it set out to or left a fault out proves
      // less than it says.
      held:
        verdict.held &&
        settled &&
        kills === config.kills &&
        Object.values(injected).every((times) => times > 0),
      settled,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await Promise.allSettled([...children].map((child) => child.kill()));
    await ledger.close().catch(() => undefined);
    if (queueUrl) await admin.deleteQueue(queueUrl).catch(() => undefined);
    await admin.close().catch(() => undefined);
    if (config.ledger === 'postgres') await dropSchema(services.postgresUrl, schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );
}

async function dropSchema(connectionString: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
