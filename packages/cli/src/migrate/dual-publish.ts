import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueueError } from '@queueport/core';
import type { Ledger, LedgerRecord } from '@queueport/ledger';
import type { Destination, WebhookSender } from '@queueport/webhook';
import type { CheckResult } from '../report/report-types';
import type { CanaryPath } from './canary-path';
import { type CanarySeams, monotonicNow } from './canary-seams';
import { type CanaryEnvelope, type OpenPath, openPath, type PathCounts } from './canary-worker-path';
import { listSome } from './list-some';

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
  /** Names the canary's event ids: `queueport-canary:<runId>:<n>`. Random by default. */
  runId?: string;
  progress?: (line: string) => void;
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

/** How often the drain looks at the paths. */
const DRAIN_POLL_MS = 50;

/**
 * The dual-publish canary: the same event ids through both providers within a window, both
 * consumed by a DeliveryWorker over ONE ledger and one sender, then counted. It passes when
 * every event took effect exactly once and each provider carried every event it accepted.
 */
export function runDualPublish(options: DualPublishOptions): Promise<DualPublishResult> {
  return runDualPublishWith(options, {});
}

/** `runDualPublish` with the command's clock, or the tests' providers and ledgers: not exported from the package. */
export async function runDualPublishWith(
  options: DualPublishOptions,
  seams: CanarySeams,
): Promise<DualPublishResult> {
  const now = seams.now ?? monotonicNow;
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

  const setup = {
    ledger: options.ledger,
    sender: options.sender,
    destination: options.destination,
    concurrency: options.concurrency ?? 4,
    canary,
    now,
  };
  const paths = (['from', 'to'] as const).map((key) => openPath(key, options[key], setup, seams));
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
