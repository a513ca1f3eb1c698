import { randomBytes } from 'node:crypto';
import { type ConformanceHarness, type Session, withSession } from '@queueport/conformance';
import { type Clock, payloadDigest, systemClock } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { buildReconciliationReport, type ReconciliationReport } from '../reconcile';
import { startReferenceReceiver } from '../reference-receiver';
import { createWebhookSender, type WebhookSender } from '../sender';
import { type CrashInjector, DeliveryWorker } from '../worker';
import { classify, type EventHistory, type EventVerdict } from './checker';
import { observeLedger } from './observed-ledger';
import type { CrashScenario } from './scenario';

/** A fresh, empty ledger living by `clock`, and how to remove it. */
export type LedgerFactory = (clock: Clock) => Promise<{ ledger: Ledger; dispose(): Promise<void> }>;

export interface CrashRunOptions {
  /**
   * Wraps the sender every worker of the run uses. For self-tests that break the worker on
   * purpose, e.g. a sender that changes the key between attempts.
   */
  decorateSender?: (sender: WebhookSender) => WebhookSender;
}

export interface ScenarioOutcome {
  histories: EventHistory[];
  verdicts: Map<string, EventVerdict>;
  reconciliation: ReconciliationReport;
}

const QUEUE_LEASE_SECONDS = 30;
const MAX_ROUNDS = 400;
/**
 * One long step once everything looks settled, past every wait a scenario can leave behind:
 * a delayed copy (1000 s, bridged or not) and a message a worker gave up on but could only keep
 * (released for the default retry schedule's longest wait, 2 h). Late copies are handled too.
 */
const SWEEP_MS = (2 * 3600 + 1000 + QUEUE_LEASE_SECONDS + 1) * 1000;

/**
 * Runs one scenario: publishes (with duplicates and reused ids), several workers taking turns
 * concurrently, crashes injected at the chosen points, time moved on whenever everyone is idle.
 * Then reads what really happened: the receiver's business effects, the ledger's answers and
 * final rows, and what the queue still holds.
 */
export async function runCrashScenario(
  harness: ConformanceHarness,
  openLedger: LedgerFactory,
  scenario: CrashScenario,
  receiverMode: 'idempotent' | 'ignores-key',
  options: CrashRunOptions = {},
): Promise<ScenarioOutcome> {
  return withSession(harness, async (session) => {
    const clock: Clock = { now: () => session.clock.now(), sleep: systemClock.sleep };
    const eventIds = Array.from({ length: scenario.events }, (_, i) => session.eventId(`e${i}`));
    const flaky = new Set(scenario.flaky.map((i) => eventIds[i]));
    const opened = await openLedger(clock);
    const observed = observeLedger(opened.ledger, clock);
    const ledger = observed.ledger;
    const secrets = scenario.signed ? [`whsec_${randomBytes(32).toString('base64')}`] : undefined;
    const receiver = await startReferenceReceiver({
      mode: receiverMode,
      ...(secrets ? { secrets } : {}),
      respond: ({ eventId, attempt }) => (flaky.has(eventId) && attempt === 1 ? 503 : 200),
    });
    const honest = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      requestTimeoutMs: 5_000,
    });
    const sender = options.decorateSender ? options.decorateSender(honest) : honest;
    const crashes = new Map<string, number>();
    try {
      const crash = crashInjector(scenario, eventIds, crashes);
      const destination = { id: 'reference-receiver', url: receiver.url, ...(secrets ? { secrets } : {}) };
      const workers = Array.from(
        { length: scenario.workers },
        (_, i) =>
          new DeliveryWorker({
            queue: session.queue,
            ledger,
            sender,
            route: () => destination,
            clock,
            crash,
            workerId: `w${i}`,
          }),
      );
      // A re-taken lease is how an injected crash shows itself: expected here, and what the
      // properties judge is the ledger and the receiver, so it is heard rather than logged.
      for (const worker of workers) worker.on('lease-lost', () => {});
      const published = new Set<string>();
      const enqueued = new Map<string, Set<string>>();
      // A receipt's `duplicate` is the provider's word only where its manifest says it reports
      // repeats; elsewhere it is always false ("not known"), so what was enqueued is read from
      // what reached a worker or is still queued (see `enqueuedDigests` below).
      const dedupe = session.queue.capabilities.dedupe as { reportsDuplicates?: boolean };
      const receiptsTell = dedupe.reportsDuplicates === true;
      for (const { event, gapSeconds, delaySeconds, variant = 0 } of scenario.publishes) {
        if (gapSeconds > 0) await session.clock.advance(gapSeconds * 1000);
        const payload = { event, amount: 4200 + event, ...(variant === 0 ? {} : { variant }) };
        const receipt = await session.queue.publish({
          envelope: session.envelope(`e${event}`, payload),
          delaySeconds,
        });
        const eventId = eventIds[event]!;
        published.add(eventId);
        if (!receipt.duplicate) {
          const digests = enqueued.get(eventId) ?? new Set<string>();
          enqueued.set(eventId, digests.add(payloadDigest(payload)));
        }
      }
      await runRounds(session, workers, scenario.rounds, async () => {
        for (const id of published) {
          const state = (await ledger.get(id))?.state;
          if (state === undefined || state === 'processing') return false;
        }
        return true;
      });
      const leftovers = await leftoverDigests(session);
      const histories: EventHistory[] = [];
      for (const eventId of published) {
        const effects = receiver.effectsFor(eventId);
        const { claimedDigests, ...observations } = observed.observations(eventId);
        const left = leftovers.get(eventId) ?? [];
        const candidates = [...(enqueued.get(eventId) ?? [])];
        const enqueuedDigests = receiptsTell
          ? candidates
          : candidates.filter((digest) => claimedDigests.includes(digest) || left.includes(digest));
        histories.push({
          eventId,
          effects: effects.length,
          effectDigests: effects.map((e) => e.payloadSha256),
          dedupeKeys: [...new Set(effects.flatMap((e) => (e.dedupeKey === undefined ? [] : [e.dedupeKey])))],
          crashes: crashes.get(eventId) ?? 0,
          record: await opened.ledger.get(eventId),
          enqueuedDigests,
          ...observations,
          leftoverDigests: left,
        });
      }
      return {
        histories,
        verdicts: new Map(histories.map((h) => [h.eventId, classify(h)])),
        reconciliation: await buildReconciliationReport(opened.ledger, { olderThanSeconds: 0 }),
      };
    } finally {
      await sender.close();
      await receiver.close();
      await opened.dispose();
    }
  });
}

async function runRounds(
  session: Session,
  workers: DeliveryWorker[],
  rounds: number[],
  allSettled: () => Promise<boolean>,
): Promise<void> {
  let idle = 0;
  let swept = false;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const active = workers.slice(0, Math.min(workers.length, rounds[round % rounds.length]!));
    const handled = await Promise.all(
      active.map(async (worker) => {
        const [delivery] = await session.queue.receive({
          maxMessages: 1,
          leaseSeconds: QUEUE_LEASE_SECONDS,
          waitSeconds: session.timing.receiveWaitSeconds,
        });
        if (!delivery) return false;
        await worker.process(delivery);
        return true;
      }),
    );
    if (handled.some(Boolean)) {
      idle = 0;
      continue;
    }
    // Idle: let leases lapse and delays run out. Once every event is settled in the ledger and
    // the queue has stayed quiet past a whole lease, take one long step so late copies (delayed
    // duplicates, reused ids) are handled too, then stop when it is quiet again.
    if (++idle >= 3 && (await allSettled())) {
      if (swept) return;
      swept = true;
      idle = 0;
      await session.clock.advance(SWEEP_MS);
      continue;
    }
    await session.clock.advance((QUEUE_LEASE_SECONDS + 1) * 1000);
  }
}

/** What the queue still holds once the run is over (past every delay), by event id and digest. */
async function leftoverDigests(session: Session): Promise<Map<string, string[]>> {
  await session.clock.advance(SWEEP_MS);
  const left = new Map<string, string[]>();
  for (const delivery of await session.drain({ ack: true })) {
    const { event_id, payload_sha256 } = delivery.envelope;
    left.set(event_id, [...(left.get(event_id) ?? []), payload_sha256]);
  }
  return left;
}

function crashInjector(
  scenario: CrashScenario,
  eventIds: string[],
  crashes: Map<string, number>,
): CrashInjector {
  const planned = new Set(scenario.crashes.map((c) => `${eventIds[c.event]}|${c.point}|${c.nth}`));
  const reached = new Map<string, number>();
  return (point, eventId) => {
    const key = `${eventId}|${point}`;
    const nth = (reached.get(key) ?? 0) + 1;
    reached.set(key, nth);
    const hit = planned.has(`${key}|${nth}`);
    if (hit) crashes.set(eventId, (crashes.get(eventId) ?? 0) + 1);
    return hit;
  };
}
