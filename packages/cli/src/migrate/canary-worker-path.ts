import { type AnyQueue, type Consumer, fitDelay, Queue } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import {
  type DeliveryResult,
  DeliveryWorker,
  type Destination,
  type WebhookSender,
} from '@queueport/webhook';
import type { CanaryPath, CanaryPathKey } from './canary-path';
import type { CanarySeams } from './canary-seams';
import { patientClaims } from './patient-claims';

export interface PathCounts {
  path: CanaryPathKey;
  name: string;
  /** Canary events the provider accepted. */
  published: number;
  /** Publishes the provider itself said it absorbed as a repeat. */
  publishDuplicates: number;
  publishErrors: { eventId: string; error: string }[];
  /** Deliveries of canary events the path's worker handled, redeliveries and duplicates included. */
  received: number;
  /** How the worker ended each of them. */
  results: Partial<Record<DeliveryResult, number>>;
  /** Published on this path but never received from it by the end of the drain. */
  lost: string[];
  /** Messages that were not canary events: released untouched. */
  foreign: number;
  /** Whether the path was seen empty (and idle) before the drain bound. */
  drained: boolean;
}

const TERMINAL: ReadonlySet<DeliveryResult> = new Set(['delivered', 'already-settled', 'failed', 'conflict']);
/** A path with no depth to ask is done once it has been settled and quiet this long (duplicates come late). */
const QUIET_MS = 300;
/** Retries of the canary's sends: a receiver that answers 503 once should not hold the run for minutes. */
const CANARY_RETRY = {
  maxAttempts: 5,
  baseMs: 200,
  maxMs: 2_000,
  retryAfterMinMs: 200,
  retryAfterMaxMs: 5_000,
};

export interface OpenPath {
  key: CanaryPathKey;
  queue: AnyQueue;
  start(): void;
  stop(): Promise<void>;
  publish(id: string, envelope: CanaryEnvelope): Promise<void>;
  /** Empty and idle now, as far as can be told. */
  settled(now: number): Promise<boolean>;
  deliveredSends(id: string): number;
  counts(): PathCounts;
  markDrained(): void;
}

export interface CanaryEnvelope {
  event_id: string;
  type: string;
  occurred_at: string;
  payload: { canary: string; seq: number };
}

/** What a path's worker shares with the other path's: the ledger above all. */
export interface PathSetup {
  ledger: Ledger;
  sender: WebhookSender;
  destination: Destination;
  concurrency: number;
  /** The canary's event ids: anything else on the queue is left alone. */
  canary: ReadonlySet<string>;
  now: () => number;
}

/** One side of the canary: its queue consumed by a DeliveryWorker of its own, over the shared ledger. */
export function openPath(
  key: CanaryPathKey,
  path: CanaryPath,
  setup: PathSetup,
  seams: Pick<CanarySeams, 'wrapDriver' | 'wrapLedger'>,
): OpenPath {
  const { canary, now } = setup;
  const expected = canary.size;
  // The wrapped queue is never closed here: its driver belongs to the caller's queue.
  const queue: AnyQueue = seams.wrapDriver
    ? new Queue(seams.wrapDriver(path.queue.driver, key), {
        clock: path.queue.clock,
        logger: path.queue.logger,
      })
    : path.queue;
  const ledger = patientClaims(seams.wrapLedger ? seams.wrapLedger(setup.ledger, key) : setup.ledger);
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender: setup.sender,
    route: () => setup.destination,
    retry: CANARY_RETRY,
    workerId: `canary-${key}`,
  });
  const published = new Set<string>();
  const received = new Map<string, DeliveryResult[]>();
  const counts: PathCounts = {
    path: key,
    name: path.name,
    published: 0,
    publishDuplicates: 0,
    publishErrors: [],
    received: 0,
    results: {},
    lost: [],
    foreign: 0,
    drained: false,
  };
  let inFlight = 0;
  let lastActivity = 0;
  let consumer: Consumer | undefined;
  worker.on('report', (report) => {
    if (!canary.has(report.eventId)) return;
    const results = received.get(report.eventId) ?? [];
    results.push(report.result);
    received.set(report.eventId, results);
    counts.results[report.result] = (counts.results[report.result] ?? 0) + 1;
  });

  return {
    key,
    queue,
    start() {
      const leaseSeconds = Math.min(queue.capabilities.leaseSeconds.max, worker.ledgerLeaseSeconds);
      consumer = queue.consume(
        async (delivery, { signal }) => {
          inFlight++;
          lastActivity = now();
          try {
            if (!canary.has(delivery.envelope.event_id)) {
              // Not ours: never claimed, never sent; it comes back to whoever owns it.
              counts.foreign++;
              await delivery.release({ delaySeconds: fitDelay(30, queue.capabilities) });
              return;
            }
            counts.received++;
            await worker.process(delivery, signal);
          } finally {
            inFlight--;
            lastActivity = now();
          }
        },
        {
          concurrency: setup.concurrency,
          leaseSeconds,
          waitSeconds: Math.min(1, queue.capabilities.longPollMaxSeconds),
        },
      );
    },
    async stop() {
      await consumer?.close({ timeoutMs: 2_000 });
    },
    async publish(id, envelope) {
      try {
        const receipt = await queue.publish({ envelope });
        published.add(id);
        counts.published++;
        if (receipt.duplicate) counts.publishDuplicates++;
      } catch (error) {
        counts.publishErrors.push({
          eventId: id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
    async settled(at) {
      if (inFlight > 0) return false;
      const depth = path.depth ? await path.depth() : null;
      if (depth !== null) return depth === 0;
      const everySettled = [...published].every((id) => received.get(id)?.some((r) => TERMINAL.has(r)));
      return (
        everySettled &&
        published.size + counts.publishErrors.length === expected &&
        at - lastActivity >= QUIET_MS
      );
    },
    deliveredSends: (id) => received.get(id)?.filter((r) => r === 'delivered').length ?? 0,
    counts() {
      counts.lost = [...published].filter((id) => !received.has(id));
      return { ...counts, results: { ...counts.results }, publishErrors: [...counts.publishErrors] };
    },
    markDrained() {
      counts.drained = true;
    },
  };
}
