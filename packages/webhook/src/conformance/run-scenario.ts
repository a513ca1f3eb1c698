import { type ConformanceHarness, type Session, withSession } from '@queueport/conformance';
import { type Clock, systemClock } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { buildReconciliationReport, type ReconciliationReport } from '../reconcile';
import { startReferenceReceiver } from '../reference-receiver';
import { createWebhookSender } from '../sender';
import { type CrashInjector, DeliveryWorker } from '../worker';
import { classify, type EventHistory, type EventVerdict } from './checker';
import type { CrashScenario } from './scenario';

/** A fresh, empty ledger living by `clock`, and how to remove it. */
export type LedgerFactory = (clock: Clock) => Promise<{ ledger: Ledger; dispose(): Promise<void> }>;

export interface ScenarioOutcome {
  histories: EventHistory[];
  verdicts: Map<string, EventVerdict>;
  reconciliation: ReconciliationReport;
}

const QUEUE_LEASE_SECONDS = 30;
const MAX_ROUNDS = 400;

/**
 * Runs one scenario: publishes (with duplicates), several workers taking turns concurrently,
 * crashes injected at the chosen points, time moved on whenever everyone is idle. Then reads
 * what really happened from the receiver and the ledger.
 */
export async function runCrashScenario(
  harness: ConformanceHarness,
  openLedger: LedgerFactory,
  scenario: CrashScenario,
  receiverMode: 'idempotent' | 'ignores-key',
): Promise<ScenarioOutcome> {
  return withSession(harness, async (session) => {
    const clock: Clock = { now: () => session.clock.now(), sleep: systemClock.sleep };
    const eventIds = Array.from({ length: scenario.events }, (_, i) => session.eventId(`e${i}`));
    const flaky = new Set(scenario.flaky.map((i) => eventIds[i]));
    const { ledger, dispose } = await openLedger(clock);
    const receiver = await startReferenceReceiver({
      mode: receiverMode,
      respond: ({ eventId, attempt }) => (flaky.has(eventId) && attempt === 1 ? 503 : 200),
    });
    const sender = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      requestTimeoutMs: 5_000,
    });
    const crashes = new Map<string, number>();
    try {
      const crash = crashInjector(scenario, eventIds, crashes);
      const workers = Array.from(
        { length: scenario.workers },
        (_, i) =>
          new DeliveryWorker({
            queue: session.queue,
            ledger,
            sender,
            route: () => ({ id: 'reference-receiver', url: receiver.url }),
            clock,
            crash,
            workerId: `w${i}`,
          }),
      );
      const published = new Set<string>();
      for (const { event, gapSeconds, delaySeconds } of scenario.publishes) {
        if (gapSeconds > 0) await session.clock.advance(gapSeconds * 1000);
        await session.queue.publish({
          envelope: session.envelope(`e${event}`, { event, amount: 4200 + event }),
          delaySeconds,
        });
        published.add(eventIds[event]!);
      }
      await runRounds(session, workers, scenario.rounds, async () => {
        for (const id of published) {
          const state = (await ledger.get(id))?.state;
          if (state === undefined || state === 'processing') return false;
        }
        return true;
      });
      const histories: EventHistory[] = [];
      for (const eventId of published) {
        histories.push({
          eventId,
          effects: receiver.effectCount(eventId),
          crashes: crashes.get(eventId) ?? 0,
          record: await ledger.get(eventId),
        });
      }
      return {
        histories,
        verdicts: new Map(histories.map((h) => [h.eventId, classify(h)])),
        reconciliation: await buildReconciliationReport(ledger, { olderThanSeconds: 0 }),
      };
    } finally {
      await sender.close();
      await receiver.close();
      await dispose();
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
    // Idle: let leases lapse and delays run out. Stop once every event is settled in the ledger
    // and the queue has stayed quiet past a whole lease, so late redeliveries were seen too.
    if (++idle >= 3 && (await allSettled())) return;
    await session.clock.advance((QUEUE_LEASE_SECONDS + 1) * 1000);
  }
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
