import type { AdapterDefinition, Clock, EnvelopeInput, QueueAdmin, QueueOptions } from '@queueport/core';
import { Queue } from '@queueport/core';
import { Agent, type Dispatcher } from 'undici';
import { createInfraiAdapter, type InfraiAdapterOptions } from '../../src';
import {
  type InfraiSimulator,
  type InfraiSimulatorOptions,
  type SimulatorRequest,
  startInfraiSimulator,
} from '../../src/testing';
import { callCapability } from '../../src/testing/raw-client';

/** Fast retries of the Queue's provider calls: four tries, a few milliseconds apart. */
export const FAST_RETRY: QueueOptions['retry'] = { maxAttempts: 4, baseMs: 1, maxMs: 5 };

export interface Fixture {
  sim: InfraiSimulator;
  adapter: AdapterDefinition;
  admin: QueueAdmin;
  /** `infrai://127.0.0.1:PORT?tls=false`, plus any `query` given. */
  provider: URL;
  /** A queue's URL on this simulator, with the provider's options and `extra` query text. */
  urlOf(name: string, extra?: string): URL;
  /** The Queue over the adapter, opened by URL as an application does. */
  open(name: string, options?: QueueOptions & { query?: string }): Promise<Queue>;
  /** The simulator's log, only the given capability's requests. */
  calls(capability: string): SimulatorRequest[];
  close(): Promise<void>;
}

export interface FixtureOptions {
  simulator?: InfraiSimulatorOptions;
  /** Default: the simulator's first key. */
  adapter?: InfraiAdapterOptions;
  /** The Queue's clock; default the simulator's. */
  clock?: Clock;
  /** Extra query options on the provider URL, e.g. `timeoutMs=100`. */
  query?: string;
}

/** A simulator, an adapter holding its key, and the admin on it. */
export async function startFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const sim = await startInfraiSimulator(options.simulator);
  const adapter = createInfraiAdapter({ apiKey: sim.apiKey, ...options.adapter });
  const host = new URL(sim.url).host;
  const base = `infrai://${host}/`;
  const query = ['tls=false', ...(options.query ? [options.query] : [])].join('&');
  const provider = new URL(`${base}?${query}`);
  const admin = await adapter.admin!(provider, {});
  const queues: Queue[] = [];
  const urlOf = (name: string, extra?: string) =>
    new URL(`${base}${name}?${[query, ...(extra ? [extra] : [])].join('&')}`);
  return {
    sim,
    adapter,
    admin,
    provider,
    urlOf,
    async open(name, { query: extra, ...queueOptions } = {}) {
      const driver = await adapter.open(urlOf(name, extra), {});
      const queue = new Queue(driver, {
        retry: FAST_RETRY,
        clock: options.clock ?? sim.clock,
        ...queueOptions,
      });
      queues.push(queue);
      return queue;
    },
    calls: (capability) => sim.requests().filter((r) => r.capability === capability),
    async close() {
      await Promise.allSettled(queues.map((q) => q.close({ timeoutMs: 100 })));
      await admin.close();
      await sim.close();
    },
  };
}

let counter = 0;

/** An envelope input with a unique event id (or the one given). */
export function event(eventId = `evt-${process.pid}-${++counter}`, payload: unknown = { n: counter }) {
  return {
    envelope: {
      event_id: eventId,
      type: 'test.event',
      occurred_at: '2026-01-01T00:00:00.000Z',
      payload,
    } as EnvelopeInput,
  };
}

/**
 * Receives until the queue answers nothing, acking every delivery; returns each event id as
 * often as it was delivered. On a virtual clock the lease never runs out meanwhile.
 */
export async function drain(queue: Queue, { ack = true }: { ack?: boolean } = {}): Promise<string[]> {
  const seen: string[] = [];
  for (let pass = 0; pass < 100; pass++) {
    const batch = await queue.receive({ maxMessages: 10, leaseSeconds: 300 });
    if (batch.length === 0) return seen;
    for (const delivery of batch) {
      seen.push(delivery.envelope.event_id);
      if (ack) await delivery.ack();
    }
  }
  throw new Error('the queue did not run dry within 100 receives');
}

/** How often each value occurs. */
export function tally(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const value of values) out[value] = (out[value] ?? 0) + 1;
  return out;
}

/** Creates a queue straight on the simulator (not through the admin), with Infrai's own fields. */
export async function rawCreate(sim: InfraiSimulator, params: Record<string, unknown>): Promise<void> {
  const answer = await callCapability(sim, 'queue.create', {
    idempotency_key: `raw-create-${String(params.name)}-${++counter}`,
    ...params,
  });
  if (!answer.envelope.ok) throw new Error(`raw create failed: ${JSON.stringify(answer.envelope.error)}`);
}

export interface SentRequest {
  method: string;
  path: string;
  body: string | undefined;
  headers: Record<string, string>;
}

/**
 * An undici dispatcher that records every request the adapter sends (body included), whatever
 * becomes of it: the simulator's log knows no keys of a request it dropped or refused before
 * reading the body, the wire does.
 */
export function recordingDispatcher(): {
  dispatcher: Dispatcher;
  sent: SentRequest[];
  close(): Promise<void>;
} {
  const sent: SentRequest[] = [];
  const agent = new Agent();
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    const headers: Record<string, string> = {};
    const raw = opts.headers;
    if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
      for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
        headers[name.toLowerCase()] = String(value);
      }
    }
    sent.push({
      method: String(opts.method),
      path: String(opts.path),
      body: typeof opts.body === 'string' ? opts.body : undefined,
      headers,
    });
    return dispatch(opts, handler);
  });
  return { dispatcher, sent, close: () => agent.close() };
}

/** The idempotency keys a publish_batch body carried. */
export function batchKeys(body: string | undefined): string[] {
  if (body === undefined) return [];
  const parsed = JSON.parse(body) as { messages?: { idempotency_key?: string }[] };
  return (parsed.messages ?? []).map((m) => String(m.idempotency_key));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
