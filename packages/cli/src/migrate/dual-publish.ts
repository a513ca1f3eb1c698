import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AnyQueue, type Consumer, fitDelay, Queue, QueueError } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import type { Ledger, LedgerRecord } from '@queueport/ledger';
import {
  type DeliveryResult,
  DeliveryWorker,
  type Destination,
  type WebhookSender,
} from '@queueport/webhook';
import type { CheckResult } from '../report/report-types';
import { listSome } from './list-some';

/** The two sides of a provider change: `from` is the provider in use, `to` the one coming. */
export type CanaryPathKey = 'from' | 'to';

export interface CanaryPath {
  /** The provider's name in the configuration, for reports. */
  name: string;
  /** A queue the canary owns: everything it holds is consumed (messages that are not canary events are left alone). */
  queue: AnyQueue;
  /** Messages the queue still holds (waiting, delayed or leased); null where the provider does not say. */
  depth?: () => Promise<number | null>;
}

/** What the reference receiver tells: effects per business identity, whatever key a request carried. */
export interface EffectCounter {
  effectCount(eventId: string): number;
}

export interface DualPublishOptions {
  from: CanaryPath;
  to: CanaryPath;
  /** The ONE ledger both paths' workers share: that it is shared is what the canary proves. */
  ledger: Ledger;
  sender: WebhookSender;
  /** Where every canary event is delivered. */
  destination: Destination;
  /** Canary events, each published to both paths. Default 20. */
  events?: number;
  /** Publication is spread over this window. Default 5000. */
  windowMs?: number;
  /** How long after the window the paths may take to drain before the rest counts as pending. Default 30000. */
  drainMs?: number;
  /** Counts effects at the receiver; without it they are read from the ledger and the sender's answers. */
  effects?: EffectCounter;
  /** Deliveries each path's worker handles at once. Default 4. */
  concurrency?: number;
  /** Test hook: the provider as the path sees it (a provider that duplicates or drops). */
  wrapDriver?: (driver: Driver, path: CanaryPathKey) => Driver;
  /** Test hook: the ledger one path's worker uses (a path that bypasses the shared ledger). */
  wrapLedger?: (ledger: Ledger, path: CanaryPathKey) => Ledger;
  /** Names the canary's event ids: `queueport-canary:<runId>:<n>`. Random by default. */
  runId?: string;
  /** Milliseconds, for durations; performance.now by default. */
  now?: () => number;
  progress?: (line: string) => void;
}

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

export interface DualPublishResult {
  runId: string;
  eventIds: string[];
  from: PathCounts;
  to: PathCounts;
  /** Events that took effect at least once. */
  delivered: number;
  /** Deliveries that did not become a second effect: the ledger found the event settled. */
  suppressedByLedger: number;
  /** 2xx answers that were replays of an earlier effect (known only from the reference receiver). */
  suppressedByReceiver: number;
  /** Events with no terminal state in the ledger at the end. */
  pending: string[];
  /** Events that took effect more than once, with their counts. */
  duplicates: { eventId: string; effects: number }[];
  /** Events that took no effect at all. */
  undelivered: string[];
  /** Effects per event id. */
  effects: Record<string, number>;
  effectSource: 'receiver' | 'ledger';
  durationMs: number;
  checks: CheckResult[];
}

const TERMINAL: ReadonlySet<DeliveryResult> = new Set(['delivered', 'already-settled', 'failed', 'conflict']);
/** How often the drain looks at the paths. */
const DRAIN_POLL_MS = 50;
/** A path with no depth to ask is done once it has been settled and quiet this long (duplicates come late). */
const QUIET_MS = 300;
/**
 * How long a worker waits for the other path's worker to settle an event it finds busy. Both
 * paths race on every canary event by design; the worker's own answer to `busy` is a release
 * for the rest of the ledger lease (tens of seconds), which would make every race a stall.
 */
const BUSY_WAIT_MS = 2_000;
const BUSY_POLL_MS = 20;
/** Retries of the canary's sends: a receiver that answers 503 once should not hold the run for minutes. */
const CANARY_RETRY = {
  maxAttempts: 5,
  baseMs: 200,
  maxMs: 2_000,
  retryAfterMinMs: 200,
  retryAfterMaxMs: 5_000,
};

/**
 * The dual-publish canary: the same event ids through both providers within a window, both
 * consumed by a DeliveryWorker over ONE ledger and one sender, then counted. It passes when
 * every event took effect exactly once and each provider carried every event it accepted.
 */
export async function runDualPublish(options: DualPublishOptions): Promise<DualPublishResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const count = options.events ?? 20;
  const windowMs = options.windowMs ?? 5_000;
  const drainMs = options.drainMs ?? 30_000;
  const runId = options.runId ?? randomUUID().slice(0, 8);
  const progress = options.progress ?? (() => {});
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new QueueError('INVALID_ARGUMENT', 'migrate: events must be a whole number ≥ 1');
  }
  if (!(windowMs >= 0 && drainMs >= 0)) {
    throw new QueueError('INVALID_ARGUMENT', 'migrate: windowMs and drainMs must be ≥ 0');
  }
  const eventIds = Array.from(
    { length: count },
    (_, i) => `queueport-canary:${runId}:${String(i + 1).padStart(4, '0')}`,
  );
  const canary = new Set(eventIds);

  const paths = (['from', 'to'] as const).map((key) =>
    openPath(key, options[key], options, canary, eventIds.length, now),
  );
  try {
    for (const path of paths) path.start();
    progress(`migrate: publishing ${count} canary events to ${options.from.name} and ${options.to.name}`);
    await publishAll(eventIds, runId, windowMs, paths, now);
    progress('migrate: published; draining both paths');
    await drain(paths, now() + drainMs, now);
  } finally {
    await Promise.all(paths.map((path) => path.stop()));
  }

  const records = new Map<string, LedgerRecord | undefined>();
  for (const id of eventIds) records.set(id, await options.ledger.get(id));
  const effects: Record<string, number> = {};
  let suppressedByReceiver = 0;
  for (const id of eventIds) {
    const sent2xx = paths.reduce((sum, path) => sum + path.deliveredSends(id), 0);
    if (options.effects) {
      effects[id] = options.effects.effectCount(id);
      suppressedByReceiver += Math.max(0, sent2xx - effects[id]!);
    } else {
      // Without the receiver's word, a 2xx answer is an effect: with the shared ledger only one
      // send per event is ever made, so a second one is the fault the canary exists to find.
      effects[id] = Math.max(sent2xx, records.get(id)?.state === 'delivered' ? 1 : 0);
    }
  }
  const [from, to] = paths.map((path) => path.counts()) as [PathCounts, PathCounts];
  const result: Omit<DualPublishResult, 'checks'> = {
    runId,
    eventIds,
    from,
    to,
    delivered: eventIds.filter((id) => effects[id]! >= 1).length,
    suppressedByLedger: (from.results['already-settled'] ?? 0) + (to.results['already-settled'] ?? 0),
    suppressedByReceiver,
    pending: eventIds.filter(
      (id) => records.get(id)?.state !== 'delivered' && records.get(id)?.state !== 'failed',
    ),
    duplicates: eventIds
      .filter((id) => effects[id]! > 1)
      .map((id) => ({ eventId: id, effects: effects[id]! })),
    undelivered: eventIds.filter((id) => effects[id] === 0),
    effects,
    effectSource: options.effects ? 'receiver' : 'ledger',
    durationMs: Math.round(now() - started),
  };
  return { ...result, checks: dualPublishChecks(result) };
}

function dualPublishChecks(result: Omit<DualPublishResult, 'checks'>): CheckResult[] {
  const durationMs = result.durationMs;
  const { from, to } = result;
  const suppressed = result.suppressedByLedger + result.suppressedByReceiver;
  const checks: CheckResult[] = [];
  for (const path of [from, to]) {
    const failed = path.publishErrors.length > 0;
    checks.push({
      id: 'migrate.publish',
      title: 'every canary event was accepted by the provider',
      provider: path.name,
      status: failed ? 'failed' : 'passed',
      durationMs,
      detail: failed
        ? `${path.publishErrors.length} refused: ${listSome(
            path.publishErrors.map((e) => `${e.eventId} (${e.error})`),
            5,
          )}`
        : `${path.published} published`,
    });
  }
  checks.push({
    id: 'migrate.no-duplicates',
    title: 'no event took effect twice',
    status: result.duplicates.length > 0 ? 'failed' : 'passed',
    durationMs,
    detail:
      result.duplicates.length > 0
        ? `${result.duplicates.length} events took effect more than once: ${listSome(result.duplicates.map((d) => `${d.eventId} ×${d.effects}`))}`
        : `${result.delivered} events took effect once each; ${suppressed} duplicate deliveries suppressed (ledger ${result.suppressedByLedger}, receiver ${result.suppressedByReceiver})`,
  });
  const lostParts = [
    ...[from, to]
      .filter((path) => path.lost.length > 0)
      .map((path) => `lost by ${path.name} (${path.path}): ${listSome(path.lost)}`),
    ...(result.undelivered.length > 0 ? [`never delivered: ${listSome(result.undelivered)}`] : []),
  ];
  checks.push({
    id: 'migrate.no-losses',
    title: 'every event was delivered, and each provider carried every event it accepted',
    status: lostParts.length > 0 ? 'failed' : 'passed',
    durationMs,
    detail:
      lostParts.length > 0
        ? lostParts.join('; ')
        : `${result.delivered} of ${result.eventIds.length} delivered; ${from.name} and ${to.name} carried all`,
  });
  return checks;
}

interface OpenPath {
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

interface CanaryEnvelope {
  event_id: string;
  type: string;
  occurred_at: string;
  payload: { canary: string; seq: number };
}

function openPath(
  key: CanaryPathKey,
  path: CanaryPath,
  options: DualPublishOptions,
  canary: ReadonlySet<string>,
  expected: number,
  now: () => number,
): OpenPath {
  // The wrapped queue is never closed here: its driver belongs to the caller's queue.
  const queue: AnyQueue = options.wrapDriver
    ? new Queue(options.wrapDriver(path.queue.driver, key), {
        clock: path.queue.clock,
        logger: path.queue.logger,
      })
    : path.queue;
  const ledger = patientClaims(options.wrapLedger ? options.wrapLedger(options.ledger, key) : options.ledger);
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender: options.sender,
    route: () => options.destination,
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
          concurrency: options.concurrency ?? 4,
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

/** Each event at its moment in the window, to both paths at once: the two race, as in a real dual publish. */
async function publishAll(
  eventIds: readonly string[],
  runId: string,
  windowMs: number,
  paths: readonly OpenPath[],
  now: () => number,
): Promise<void> {
  const start = now();
  const step = eventIds.length > 1 ? windowMs / (eventIds.length - 1) : 0;
  for (const [i, id] of eventIds.entries()) {
    const wait = start + i * step - now();
    if (wait > 0) await sleep(wait);
    // One envelope for both paths, occurred_at included: a receiver fingerprints the whole body,
    // and two bodies under one key would be refused as a changed request (422), not replayed.
    const envelope: CanaryEnvelope = {
      event_id: id,
      type: 'queueport.canary',
      occurred_at: new Date().toISOString(),
      payload: { canary: runId, seq: i + 1 },
    };
    await Promise.all(paths.map((path) => path.publish(id, envelope)));
  }
}

/** Until both paths are seen settled twice in a row (a receive may be between the two looks), or the bound. */
async function drain(paths: readonly OpenPath[], deadline: number, now: () => number): Promise<void> {
  const streak = new Map<OpenPath, number>();
  for (;;) {
    const at = now();
    for (const path of paths) {
      const settled = await path.settled(at);
      streak.set(path, settled ? (streak.get(path) ?? 0) + 1 : 0);
      if ((streak.get(path) ?? 0) >= 2) path.markDrained();
    }
    if (paths.every((path) => (streak.get(path) ?? 0) >= 2)) return;
    if (now() >= deadline) return;
    await sleep(DRAIN_POLL_MS);
  }
}

/**
 * The ledger as the canary's workers use it: a claim that finds the event busy waits a moment
 * for the holder (the other path's worker, a few milliseconds from settling) and asks again,
 * instead of handing the message back for the rest of the ledger lease. A busy claim writes
 * nothing, so asking again changes nothing; every decision is still the shared ledger's.
 */
export function patientClaims(ledger: Ledger): Ledger {
  const claim: Ledger['claim'] = async (request) => {
    const deadline = performance.now() + BUSY_WAIT_MS;
    for (;;) {
      const result = await ledger.claim(request);
      if (result.status !== 'busy' || performance.now() >= deadline) return result;
      await sleep(BUSY_POLL_MS);
    }
  };
  // The shared ledger is its owner's to close.
  const close: Ledger['close'] = async () => {};
  // Every other method is the shared ledger's own, forwarded whatever the interface grows to:
  // a hand-written copy of each would silently lose the next one (as it once lost `list`).
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'claim') return claim;
      if (property === 'close') return close;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface RollbackOptions {
  /** The provider being rolled back: its configured queue, where the application dual-published. */
  to: CanaryPath;
  /** Read only, to tell which drained events the ledger has already seen delivered. */
  ledger?: Ledger;
  /** How long the drain may take. Default 30000. */
  drainMs?: number;
  now?: () => number;
  progress?: (line: string) => void;
}

export interface RollbackResult {
  name: string;
  /** Messages received and acked. */
  drained: number;
  /** Their event ids, in the order drained (repeats included). */
  eventIds: string[];
  /** Drained events the ledger shows delivered: the other provider carried them. */
  deliveredElsewhere: number;
  /** Drained events the ledger has not seen delivered: the other provider must still carry them. */
  undelivered: string[];
  /** What the queue still holds at the end; null where the provider does not say. */
  remaining: number | null;
  /**
   * Bodies that were not queueport envelopes (or failed their checks): never acked as drained.
   * `deadLettered` moved to the provider's dead letters, `leftInQueue` where it cannot move
   * them (they come back when their lease ends, and count in `remaining`).
   */
  invalid: { deadLettered: number; leftInQueue: number; firstReason: string | undefined };
  durationMs: number;
  checks: CheckResult[];
}

/**
 * `--rollback`: the canary publishes nothing to B; B's queue is drained, every message acked
 * without a claim or a send, so the ledger is exactly as it was. The other provider carries the
 * same event ids, and the ledger (only read here) says which drained ones it has delivered.
 */
function invalidDetail(invalid: RollbackResult['invalid']): string {
  const parts: string[] = [];
  if (invalid.deadLettered > 0)
    parts.push(`${invalid.deadLettered} not queueport envelopes, moved to the dead letters`);
  if (invalid.leftInQueue > 0)
    parts.push(`${invalid.leftInQueue} not queueport envelopes, left in the queue`);
  return parts.length > 0 ? `; ${parts.join('; ')}` : '';
}

export async function runRollback(options: RollbackOptions): Promise<RollbackResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const deadline = started + (options.drainMs ?? 30_000);
  const { queue } = options.to;
  const progress = options.progress ?? (() => {});
  const eventIds: string[] = [];
  const leaseSeconds = Math.min(30, queue.capabilities.leaseSeconds.max);
  const waitSeconds = Math.min(1, queue.capabilities.longPollMaxSeconds);
  let emptyInARow = 0;
  let remaining: number | null = null;
  const invalid: RollbackResult['invalid'] = { deadLettered: 0, leftInQueue: 0, firstReason: undefined };
  // Listened to here, so the Queue's advice to developers (".on('invalid-message', …)") is not
  // what an operator reads; the report says what happened instead.
  const stopListening = queue.on('invalid-message', ({ deadLetter, error }) => {
    if (deadLetter) invalid.deadLettered++;
    else invalid.leftInQueue++;
    invalid.firstReason ??= error.message;
  });
  progress(`migrate --rollback: draining ${options.to.name}`);
  try {
    while (now() < deadline) {
      // Asked first, so an emptied queue ends the drain without a last long poll.
      remaining = options.to.depth ? await options.to.depth() : null;
      if (remaining === 0 || (remaining === null && emptyInARow >= 2)) break;
      const batch = await queue.receive({
        maxMessages: queue.capabilities.batch.receive,
        leaseSeconds,
        waitSeconds,
      });
      if (batch.length > 0) {
        emptyInARow = 0;
        const outcomes = await queue.ackBatch(batch);
        outcomes.forEach((outcome, i) => {
          if (outcome.ok) eventIds.push(batch[i]!.envelope.event_id);
        });
        continue;
      }
      // Held but not receivable (delayed, or leased by someone else): wait for it within the bound.
      emptyInARow++;
      if (waitSeconds === 0) await sleep(DRAIN_POLL_MS);
    }
    if (options.to.depth && remaining !== 0) remaining = await options.to.depth();
  } finally {
    stopListening();
  }

  const distinct = [...new Set(eventIds)];
  const undelivered: string[] = [];
  let deliveredElsewhere = 0;
  for (const id of distinct) {
    const record = options.ledger ? await options.ledger.get(id) : undefined;
    if (record?.state === 'delivered') deliveredElsewhere++;
    else undelivered.push(id);
  }
  const durationMs = Math.round(now() - started);
  const emptied = remaining === 0 || (remaining === null && emptyInARow >= 2);
  return {
    name: options.to.name,
    drained: eventIds.length,
    eventIds,
    deliveredElsewhere,
    undelivered,
    remaining,
    invalid,
    durationMs,
    checks: [
      {
        id: 'migrate.rollback-drained',
        title: 'the provider rolled back was drained, the ledger left untouched',
        provider: options.to.name,
        status: emptied ? 'passed' : 'failed',
        durationMs,
        detail: `${
          emptied
            ? `drained ${eventIds.length} messages (${distinct.length} events, ${deliveredElsewhere} already delivered per the ledger)`
            : `drained ${eventIds.length} messages; ${remaining ?? 'an unknown number'} still held after ${durationMs} ms`
        }${invalidDetail(invalid)}`,
      },
    ],
  };
}
