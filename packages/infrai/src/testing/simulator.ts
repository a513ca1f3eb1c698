import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '@queueport/core';
import type { DiscoverySnapshot } from '../discovery/discovery-format';
import { capabilityHandlers } from './capability-handlers';
import { CreditAccount } from './credit';
import { servedSnapshot } from './discovery-serving';
import { FaultPlan, type SimulatorFaults } from './faults';
import { IdempotencyStore } from './idempotency-store';
import { QueueStore } from './queue-store';
import { type RateLimit, RateLimiter } from './rate-limiter';
import { RequestLog, type SimulatorRequest } from './request-log';
import { serveRequest } from './request-pipeline';
import { Router } from './routing';

export const DEFAULT_SIMULATOR_API_KEY = 'ifr_test_simulator_key';

export interface InfraiSimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** The keys it accepts; default [DEFAULT_SIMULATOR_API_KEY]. `apiKey` is the first. */
  apiKeys?: readonly string[];
  /** Every time-based rule reads it at request time: a VirtualClock drives the simulator. */
  clock?: Clock;
  /** Per API key, on the clock. Default: none. */
  rateLimit?: RateLimit;
  /** Billable requests left; undefined (the default) is unlimited. */
  credit?: number;
  /** What discovery serves and what requests are validated against; given a copy of SNAPSHOT. */
  discovery?: (snapshot: DiscoverySnapshot) => DiscoverySnapshot;
  /** The regions discovery lists for every capability; default the snapshot's. */
  regions?: readonly string[];
}

export interface SimulatorQueueState {
  available: number;
  inFlight: number;
  delayed: number;
  /** In its dead-letter queue; null without one. */
  deadLetters: number | null;
  /** available + inFlight + delayed. */
  total: number;
}

export interface InfraiSimulator {
  /** The origin, e.g. http://127.0.0.1:PORT; API paths are `/v1/...`. */
  readonly url: string;
  readonly apiKey: string;
  readonly clock: Clock;
  /** What it serves and validates against (the `discovery` option applied). */
  readonly snapshot: DiscoverySnapshot;
  readonly faults: SimulatorFaults;
  setCredit(credit: number | undefined): void;
  creditLeft(): number | undefined;
  requests(): SimulatorRequest[];
  /** Undefined when there is no such queue. */
  queueState(name: string): SimulatorQueueState | undefined;
  close(): Promise<void>;
}

/**
 * Infrai's queue API as its documentation and the committed discovery snapshot describe it, in
 * this process: for the adapter's tests, its conformance run on virtual time, benchmarks and
 * the CLI's drill. It holds no timers of its own (only a slow fault waits), so it starts at once
 * and a VirtualClock moves everything it does.
 */
export async function startInfraiSimulator(options: InfraiSimulatorOptions = {}): Promise<InfraiSimulator> {
  const apiKeys = options.apiKeys ?? [DEFAULT_SIMULATOR_API_KEY];
  const apiKey = apiKeys[0];
  if (apiKey === undefined) throw new RangeError('the simulator needs at least one API key');
  const clock = options.clock ?? systemClock;
  const snapshot = servedSnapshot(options.discovery, options.regions);
  const store = new QueueStore();
  const credit = new CreditAccount(options.credit);
  const faults = new FaultPlan();
  const log = new RequestLog();
  const waits = cancellableWaits();
  let closed = false;

  const pipeline = {
    snapshot,
    clock,
    router: new Router(snapshot),
    apiKeys: new Set(apiKeys),
    rateLimiter: new RateLimiter(options.rateLimit),
    credit,
    faults,
    handlers: capabilityHandlers({ snapshot, store, idempotency: new IdempotencyStore() }),
    log,
    wait: (ms: number) => (closed ? Promise.resolve(false) : waits.wait(ms)),
  };

  const server = createServer((req, res) => {
    serveRequest(pipeline, req, res).catch(() => res.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    apiKey,
    clock,
    snapshot,
    faults,
    setCredit: (left) => credit.set(left),
    creditLeft: () => credit.left,
    requests: () => log.all(),
    queueState: (name) => {
      const queue = store.find(name);
      if (!queue) return undefined;
      const now = clock.now();
      const counts = queue.counts(now);
      const deadLetters = store.deadLettersOf(queue);
      return {
        available: counts.available,
        inFlight: counts.inFlight,
        delayed: counts.delayed,
        deadLetters: deadLetters ? deadLetters.size(now) : null,
        total: counts.available + counts.inFlight + counts.delayed,
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      waits.cancelAll();
      const done = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await done;
    },
  };
}

/** Real-time waits (slow faults) that closing ends at once, so close() never waits one out. */
function cancellableWaits(): { wait(ms: number): Promise<boolean>; cancelAll(): void } {
  const cancels = new Set<() => void>();
  return {
    wait: (ms) =>
      new Promise<boolean>((resolve) => {
        const cancel = () => {
          clearTimeout(timer);
          cancels.delete(cancel);
          resolve(false);
        };
        const timer = setTimeout(() => {
          cancels.delete(cancel);
          resolve(true);
        }, ms);
        cancels.add(cancel);
      }),
    cancelAll: () => {
      for (const cancel of [...cancels]) cancel();
    },
  };
}
