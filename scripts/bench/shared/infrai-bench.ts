/**
 * What the Infrai scenarios share: the simulator in a child process of its own (so its CPU is not
 * the client's, and both sides face the same server), one undici Agent per side with the same
 * settings, a fresh queue per side and round, envelopes that encode to 1 KB, and the raw undici
 * calls that do the adapter's work by hand: POST /v1/queue/publish_batch, POST /v1/queue/consume
 * and one POST /v1/queue/ack per message (Infrai documents no batch ack).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  canonicalJson,
  type Envelope,
  type EnvelopeInput,
  encodeEnvelope,
  type JsonValue,
  openQueue,
  prepareEnvelope,
  type Queue,
} from '@queueport/core';
import { createInfraiAdapter, idempotencyKey } from '@queueport/infrai';
import { Agent, type Dispatcher, request } from 'undici';
import {
  median,
  type PairScenario,
  progress,
  type Sample,
  type ScenarioText,
  type Side,
  timed,
} from '../runner';
import { subjectQueueOptions } from './bench-telemetry';
import { consumeUntilAcked, drainInLoops, drainQueueInLoops } from './drain-loops';
import { concurrently } from './fixtures';

/** Infrai's batch limit for publish_batch and consume (the snapshot's maxItems and maximum). */
export const BATCH = 10;
/** Calls in flight on each side: the "concurrency 10". */
export const CONCURRENCY = 10;
/** Bytes of every envelope's canonical encoding, on both sides. */
export const BODY_BYTES = 1024;
/** The lease both sides take: the Queue's default, sent as the visibility timeout. */
export const LEASE_SECONDS = 30;
/**
 * Both sides' dispatcher: one connection per call in flight, kept open across rounds (the
 * simulator's server keeps idle sockets 5 s; each side opens its sockets again, untimed, before
 * its clock starts).
 */
export const AGENT_OPTIONS: Agent.Options = { connections: CONCURRENCY, keepAliveTimeout: 30_000 };
/**
 * The raw side bounds each request with undici's own headersTimeout and bodyTimeout at the
 * driver's 30 s, as a plain undici client does; the driver gives each request one AbortSignal
 * deadline instead, and what that costs is the adapter's.
 */
const TIMEOUT_MS = 30_000;

const SIMULATOR_SCRIPT = fileURLToPath(new URL('./infrai-simulator-process.ts', import.meta.url));

export interface SimulatorProcess {
  url: string;
  apiKey: string;
  pid: number;
  /** The child's user + system CPU time so far, in µs. */
  cpuUs(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the simulator in a child process (the built package, through tsx) and waits for its URL. */
export async function startSimulatorProcess(): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SIMULATOR_SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      exited.then(([code]) => reject(new Error(`the simulator process exited (${code})`)), reject);
    });
  const hello = JSON.parse(await nextLine()) as { url: string; apiKey: string };
  return {
    url: hello.url,
    apiKey: hello.apiKey,
    pid: child.pid!,
    async cpuUs() {
      const line = nextLine();
      child.stdin!.write('cpu\n');
      return (JSON.parse(await line) as { cpuUs: number }).cpuUs;
    },
    async close() {
      if (child.exitCode !== null) return;
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface ApiEnvelope<T> {
  ok?: boolean;
  data?: T;
  error?: { code?: string; message?: string };
}

/** The bare calls: the driver's headers and timeouts, no validation, no wrapping. */
export class RawInfrai {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #dispatcher: Dispatcher;

  constructor(url: string, apiKey: string, dispatcher: Dispatcher) {
    this.#url = url;
    this.#dispatcher = dispatcher;
    this.#headers = {
      authorization: `Bearer ${apiKey}`,
      accept: 'application/json',
      'user-agent': 'queueport-infrai/raw',
      'content-type': 'application/json',
    };
  }

  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: string): Promise<T> {
    const answer = await request(`${this.#url}${path}`, {
      method,
      headers: this.#headers,
      ...(body === undefined ? {} : { body }),
      dispatcher: this.#dispatcher,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const envelope = JSON.parse(await answer.body.text()) as ApiEnvelope<T>;
    if (answer.statusCode !== 200 || envelope.ok !== true) {
      throw new Error(`${method} ${path} answered ${answer.statusCode} ${envelope.error?.code ?? ''}`);
    }
    return envelope.data as T;
  }

  /** A canonical JSON body with Infrai's trailing newline, as the driver sends. */
  post<T>(path: string, params: Record<string, unknown>): Promise<T> {
    return this.call<T>('POST', path, `${canonicalJson(params as JsonValue)}\n`);
  }
}

export type SideName = 'subject' | 'baseline';

export interface InfraiBench {
  server: SimulatorProcess;
  /** Messages per side and round. */
  messages: number;
  /** Each side's raw client, over that side's Agent (the subject's adapter uses the same Agent). */
  raw: Record<SideName, RawInfrai>;
  /** A new standard queue, empty; returns its name. */
  fresh(): Promise<string>;
  drop(name: string): Promise<void>;
  /** The portable Queue opened by URL through the adapter, over the subject's Agent (traced under --otel). */
  queue(name: string): Promise<Queue>;
  /** Opens CONCURRENCY sockets on the side's Agent, untimed, so no side pays for a connect. */
  warm(side: SideName): Promise<void>;
  /** The simulator's CPU per message, per side, over the rounds so far. */
  serverCpu: Record<SideName, number[]>;
  close(): Promise<void>;
}

export async function openInfraiBench(quick: boolean): Promise<InfraiBench> {
  const server = await startSimulatorProcess();
  const agents = { subject: new Agent(AGENT_OPTIONS), baseline: new Agent(AGENT_OPTIONS) };
  const admin = new Agent(AGENT_OPTIONS);
  const adminRaw = new RawInfrai(server.url, server.apiKey, admin);
  const raw = {
    subject: new RawInfrai(server.url, server.apiKey, agents.subject),
    baseline: new RawInfrai(server.url, server.apiKey, agents.baseline),
  };
  const adapter = createInfraiAdapter({ apiKey: server.apiKey, dispatcher: agents.subject });
  const host = new URL(server.url).host;
  const prefix = `qp-bench-${randomUUID().slice(0, 8)}`;
  let made = 0;
  return {
    server,
    messages: quick ? 100 : 10_000,
    raw,
    async fresh() {
      const name = `${prefix}-${made++}`;
      await adminRaw.post('/v1/queue/create', { name, idempotency_key: randomUUID() });
      return name;
    },
    async drop(name) {
      await adminRaw.call('DELETE', `/v1/queue/delete/${encodeURIComponent(name)}`);
    },
    queue: (name) =>
      openQueue(`infrai://${host}/${name}?tls=false`, { adapters: [adapter], ...subjectQueueOptions() }),
    async warm(side) {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => raw[side].call('GET', '/v1/queue/list')));
    },
    serverCpu: { subject: [], baseline: [] },
    async close() {
      await Promise.all([agents.subject.close(), agents.baseline.close(), admin.close()]);
      await server.close();
    },
  };
}

export function benchDetail(bench: InfraiBench): string {
  const cpu = (side: SideName) => {
    const values = bench.serverCpu[side];
    return values.length > 0 ? median(values).toFixed(1) : '–';
  };
  return `${bench.messages} messages of ${BODY_BYTES} bytes per side and round on a fresh standard queue (only the work on it timed), batches of ${BATCH}, ${CONCURRENCY} calls in flight, an undici Agent per side with the same settings (connections ${CONCURRENCY}), the @queueport/infrai simulator in a child process at ${bench.server.url} (its CPU not counted; median ${cpu('subject')} µs/msg on the subject's side, ${cpu('baseline')} on the baseline's)`;
}

/**
 * A pair over one simulator process; the detail (with the simulator's own CPU per message) is
 * filled in when the session closes, after the rounds.
 */
export function infraiPair(
  text: ScenarioText,
  sides: (bench: InfraiBench) => { subject: Side; baseline: Side },
): PairScenario {
  return {
    kind: 'pair',
    // Every Infrai pair's subject is the portable Queue (`bench.queue`).
    otel: 'subject',
    ...text,
    async open({ quick }) {
      const bench = await openInfraiBench(quick);
      try {
        await checkSameBytes(bench);
      } catch (error) {
        await bench.close();
        throw error;
      }
      const session = {
        ...sides(bench),
        detail: benchDetail(bench),
        async close() {
          session.detail = benchDetail(bench);
          progress(`${text.name}: ${session.detail}`);
          await bench.close();
        },
      };
      return session;
    },
  };
}

/**
 * `count` envelopes, prepared (validated, digest and timestamp filled in) ahead and untimed, whose
 * canonical encoding is exactly BODY_BYTES long. Both sides start from these same objects: the
 * subject hands them to Queue.publishBatch, the raw side encodes them into its request bodies.
 */
export function envelopes(label: string, count: number): Envelope[] {
  return Array.from({ length: count }, (_, i) => {
    const input = (note: string): EnvelopeInput => ({
      event_id: `bench_infrai_${label}_${i}`,
      type: 'payment.settled',
      occurred_at: '2026-01-01T00:00:00.000Z',
      payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR', note },
    });
    const probe = encodeEnvelope(prepareEnvelope(input('')));
    const envelope = prepareEnvelope(input('x'.repeat(BODY_BYTES - Buffer.byteLength(probe, 'utf8'))));
    return envelope;
  });
}

export function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** An envelope with the idempotency key the driver gives it on one queue. */
export interface KeyedEnvelope {
  key: string;
  envelope: Envelope;
}

/**
 * The raw side's messages for `queue`: each envelope with the driver's own idempotency key
 * (`idempotencyKey(queue, event id)`), derived ahead and untimed like the envelopes themselves,
 * so both sides send the same bytes; the subject's driver derives its keys inside its clock.
 */
export function keyed(queue: string, all: readonly Envelope[]): KeyedEnvelope[] {
  return all.map((envelope) => ({ key: idempotencyKey(queue, envelope.event_id), envelope }));
}

/**
 * The driver's publish_batch body, built the plain way: canonical JSON of
 * `{ messages: [{ idempotency_key, payload: { envelope, queueport: 1 } }], queue }` and a newline.
 * Byte for byte what InfraiDriver sends for the same envelopes (checked in `checkSameBytes`).
 */
export function publishBody(queue: string, batch: readonly KeyedEnvelope[]): Record<string, unknown> {
  return {
    messages: batch.map(({ key, envelope }) => ({
      idempotency_key: key,
      payload: { envelope, queueport: 1 },
    })),
    queue,
  };
}

interface PublishBatchData {
  results: Array<{ ok: boolean; message_id?: string; error?: { code?: string } }>;
}

/** The raw publish: each batch's body built and POSTed, CONCURRENCY in flight. */
export async function rawPublishAll(
  raw: RawInfrai,
  queue: string,
  all: readonly KeyedEnvelope[],
): Promise<number> {
  await concurrently(chunks(all), CONCURRENCY, async (batch) => {
    const data = await raw.post<PublishBatchData>('/v1/queue/publish_batch', publishBody(queue, batch));
    const failed = data.results.find((result) => !result.ok);
    if (failed || data.results.length !== batch.length) {
      throw new Error(`publish_batch failed: ${failed?.error?.code ?? 'results missing'}`);
    }
  });
  return all.length;
}

/** Publishes through the Queue: batches of ten, CONCURRENCY of them in flight. */
export async function publishThroughQueue(queue: Queue, all: readonly Envelope[]): Promise<number> {
  await concurrently(chunks(all), CONCURRENCY, async (batch) => {
    await queue.publishBatch(batch.map((envelope) => ({ envelope })));
  });
  return all.length;
}

interface ConsumeData {
  messages: Array<{ message_id: string; receipt_handle: string; payload: unknown; delivery_count: number }>;
}

/** The raw consume: POST consume (what the driver asks for), then one POST ack per message, all at once. */
export function rawDrain(raw: RawInfrai, queue: string, total: number): Promise<number> {
  return drainInLoops(
    total,
    async () =>
      (
        await raw.post<ConsumeData>('/v1/queue/consume', {
          max_messages: BATCH,
          queue,
          visibility_timeout: LEASE_SECONDS,
        })
      ).messages,
    (message) => message.message_id,
    async (batch) => {
      await Promise.all(
        batch.map((message) => raw.post('/v1/queue/ack', { queue, receipt_handle: message.receipt_handle })),
      );
    },
    { concurrency: CONCURRENCY },
  );
}

/** The Queue's receive loops: queue.receive of up to ten + queue.ackBatch, as rawDrain does by hand. */
export function queueDrain(queue: Queue, total: number): Promise<number> {
  return drainQueueInLoops(
    queue,
    total,
    { maxMessages: BATCH, leaseSeconds: LEASE_SECONDS },
    { concurrency: CONCURRENCY },
  );
}

/** The consumer at CONCURRENCY until every message was acked once (closed after, with the Queue). */
export function consumeAll(queue: Queue, total: number): Promise<number> {
  return consumeUntilAcked(queue, total, {
    concurrency: CONCURRENCY,
    leaseSeconds: LEASE_SECONDS,
    waitSeconds: 0,
  });
}

/**
 * `timed(work)` with the simulator's CPU read before and after (outside the clock): kept per side
 * so the report can say whether the server was the bottleneck.
 */
export async function timedOnServer(
  bench: InfraiBench,
  side: SideName,
  work: () => Promise<number>,
): Promise<Sample> {
  const before = await bench.server.cpuUs();
  const sample = await timed(work);
  const after = await bench.server.cpuUs();
  bench.serverCpu[side].push((after - before) / sample.ops);
  return sample;
}

/**
 * Runs `work` on a fresh queue (deleted after, whatever happened) with the side's sockets opened
 * first; only what `work` times counts.
 */
export async function onFreshQueue(
  bench: InfraiBench,
  side: SideName,
  work: (name: string) => Promise<Sample>,
): Promise<Sample> {
  const name = await bench.fresh();
  try {
    await bench.warm(side);
    return await work(name);
  } finally {
    await bench.drop(name);
  }
}

/** The portable Queue over a fresh queue, closed (driver and all) and the queue deleted after. */
export function onFreshPortableQueue(
  bench: InfraiBench,
  work: (queue: Queue, name: string) => Promise<Sample>,
): Promise<Sample> {
  return onFreshQueue(bench, 'subject', async (name) => {
    const queue = await bench.queue(name);
    try {
      return await work(queue, name);
    } finally {
      await queue.close();
    }
  });
}

/**
 * Untimed, once per side and round before the clock: one call of each kind the timed work makes,
 * so neither side's first call pays a one-off (the adapter compiles each capability's schemas on
 * its first call, per driver). For a consume pair the queue holds BATCH extra messages for it.
 */
export async function warmPublish(
  side: SideName,
  bench: InfraiBench,
  queue: Queue | undefined,
  name: string,
  label: string,
): Promise<void> {
  const batch = envelopes(`${label}warm`, BATCH);
  if (queue) await publishThroughQueue(queue, batch);
  else await rawPublishAll(bench.raw[side], name, keyed(name, batch));
}

/** Receives and acks BATCH messages untimed: the consume and ack calls' one-offs, on both sides. */
export async function warmConsume(
  side: SideName,
  bench: InfraiBench,
  queue: Queue | undefined,
  name: string,
): Promise<void> {
  if (queue) {
    const batch = await queue.receive({ maxMessages: BATCH, leaseSeconds: LEASE_SECONDS });
    await queue.ackBatch(batch);
    return;
  }
  const raw = bench.raw[side];
  const data = await raw.post<ConsumeData>('/v1/queue/consume', {
    max_messages: BATCH,
    queue: name,
    visibility_timeout: LEASE_SECONDS,
  });
  await Promise.all(
    data.messages.map((m) => raw.post('/v1/queue/ack', { queue: name, receipt_handle: m.receipt_handle })),
  );
}

/**
 * Once per session, untimed: what the adapter sends for a publish of one batch, a consume and an
 * ack, captured on the way out, is byte for byte what the raw side sends for the same calls.
 * Its Queue has no telemetry even under --otel, where the subject's publishes also carry their
 * trace context (the reserved `queueport.trace` attribute): bytes the raw side does not send.
 */
export async function checkSameBytes(bench: InfraiBench): Promise<void> {
  const sent: Array<{ path: string; body: string }> = [];
  const agent = new Agent(AGENT_OPTIONS);
  const capturing = agent.compose((dispatch) => (options, handler) => {
    if (typeof options.body === 'string') sent.push({ path: options.path, body: options.body });
    return dispatch(options, handler);
  });
  const adapter = createInfraiAdapter({ apiKey: bench.server.apiKey, dispatcher: capturing });
  const name = await bench.fresh();
  try {
    const queue = await openQueue(`infrai://${new URL(bench.server.url).host}/${name}?tls=false`, {
      adapters: [adapter],
    });
    const batch = envelopes('bytes', BATCH);
    await publishThroughQueue(queue, batch);
    const [delivery] = await queue.receive({ maxMessages: 1, leaseSeconds: LEASE_SECONDS });
    await delivery!.ack();
    await queue.close();
    const text = (params: Record<string, unknown>) => `${canonicalJson(params as JsonValue)}\n`;
    const expected = [
      { path: '/v1/queue/publish_batch', body: text(publishBody(name, keyed(name, batch))) },
      {
        path: '/v1/queue/consume',
        body: text({ max_messages: 1, queue: name, visibility_timeout: LEASE_SECONDS }),
      },
      { path: '/v1/queue/ack', body: text({ queue: name, receipt_handle: delivery!.receipt }) },
    ];
    if (JSON.stringify(sent) !== JSON.stringify(expected)) {
      throw new Error(`the raw bodies differ from the adapter's: ${JSON.stringify(sent).slice(0, 500)}`);
    }
  } finally {
    await bench.drop(name);
    await agent.close();
  }
  for (const envelope of envelopes('bytes', BATCH)) {
    const bytes = Buffer.byteLength(encodeEnvelope(envelope), 'utf8');
    if (bytes !== BODY_BYTES) throw new Error(`an envelope encodes to ${bytes} bytes, not ${BODY_BYTES}`);
  }
}
