import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from '@queueport/core';
import { describe, inject, it } from 'vitest';
import { waitUntil } from '../../../scripts/test-services/ports';
import { recordingHops, type SentHop } from './support/driver-taps';
import { type HopCrasher, spawnHopCrasher } from './support/hop-crash-process';
import { depthHolding, ScratchQueues } from './support/scratch-queues';
import { sqsEndpoint, sqsServer } from './support/sqs';

/** The bridge's hop: SQS is asked to hold at most this long, so a delay of a few seconds takes several hops. */
const HOP_SECONDS = 2;
const ATTRIBUTES = { tenant: 'acme', trace: 'trace-7f3a' };
/**
 * How late a delivery may be: the Queue rounds a hop up to whole seconds (under 1 s late), moto
 * wakes a long poll at least once a second for a message whose delay ran out, and the rest is
 * slack for a busy machine. Never early is the point; this only says it is not lost in between.
 */
const LATE_BOUND_MS = 3000;
/** After a delivery: long enough for a second copy to show up. */
const QUIET_MS = 1000;
/** tsx compiles the fixture, the workspace sources and the AWS SDK before the child can receive. */
const READY_BOUND_MS = 20_000;
/** The child's lease on the hop it never acks: when that hop comes back. */
const CRASHER_LEASE_SECONDS = 2;

interface Arrival {
  eventId: string;
  receiveCount: number;
  attributes: Record<string, string>;
  /** Epoch ms when the handler saw it. */
  at: number;
}

/** Scratch queues whose URLs carry the short hop. */
async function hopScratch(): Promise<ScratchQueues> {
  return ScratchQueues.open('hops', { nativeMaxDelaySeconds: HOP_SECONDS });
}

/** A Queue over `url` whose driver records every hop the bridge sends through it. */
async function recordedQueue(
  scratch: ScratchQueues,
  url: string,
): Promise<{ queue: Queue; hops: SentHop[] }> {
  let hops: SentHop[] = [];
  const queue = await scratch.open(url, (driver) => {
    const recorded = recordingHops(driver);
    hops = recorded.hops;
    return recorded.driver;
  });
  return { queue, hops };
}

function publishDelayed(queue: Queue, eventId: string, delaySeconds: number) {
  return queue.publish({
    envelope: { event_id: eventId, type: 'invoice.due', payload: { eventId } },
    attributes: ATTRIBUTES,
    delaySeconds,
  });
}

/** The first hop the publish sent: it carries the due time every later hop keeps. */
function publishedHop(hops: readonly SentHop[], eventId: string): SentHop {
  const first = hops.find((hop) => hop.eventId === eventId && hop.hop === 0);
  if (!first)
    throw new Error(`the publish of ${eventId} went out without the bridge: ${JSON.stringify(hops)}`);
  return first;
}

/** `2s@0 2s@2043 ... delivered@7410`: each hop's delay and when it was sent, in ms from the first. */
function timeline(hops: readonly SentHop[], deliveredAt: number): string {
  const start = hops[0]?.sentAt ?? deliveredAt;
  return `${hops.map((h) => `${h.delaySeconds}s@${h.sentAt - start}`).join(' ')} delivered@${deliveredAt - start}`;
}

/** A consumer in this process that records every delivery it sees (and acks it). */
function recordArrivals(queue: Queue, onArrival: (arrival: Arrival) => void = () => {}) {
  const arrivals: Arrival[] = [];
  const consumer = queue.consume(
    async (delivery) => {
      const arrival = {
        eventId: delivery.envelope.event_id,
        receiveCount: delivery.receiveCount,
        attributes: { ...delivery.attributes },
        at: Date.now(),
      };
      arrivals.push(arrival);
      onArrival(arrival);
    },
    { concurrency: 2, leaseSeconds: 10 },
  );
  return { consumer, arrivals };
}

/** Waits for a first arrival, failing once it is later than the late bound allows. */
async function firstArrival(arrivals: readonly Arrival[], dueAt: number): Promise<void> {
  await waitUntil('the delayed message never arrived', async () => arrivals.length > 0, {
    timeoutMs: Math.max(0, dueAt + LATE_BOUND_MS + 1000 - Date.now()),
    intervalMs: 50,
  });
}

/**
 * 1: the delivery's count across the hops. On FIFO the last hop was seen early and hidden once,
 * which the driver takes off; local-aws-sqs 2.0.2 also counts the hiding (ChangeMessageVisibility)
 * as a receive, a gap the package README lists, so there it comes out one higher.
 */
function expectedReceiveCount(fifo: boolean): number {
  return fifo && sqsServer === 'local-aws-sqs' ? 2 : 1;
}

if (!sqsEndpoint) {
  describe('sqs: the delay bridge over a 2 s hop', () => {
    it.skip(`no SQS server: ${inject('queueportServices').sqsUnavailable ?? 'see the test services summary'}`, () => {});
  });
} else {
  describe.concurrent('sqs: the delay bridge over a 2 s hop', () => {
    for (const fifo of [false, true]) {
      const kind = fifo ? 'fifo' : 'standard';

      it(`${kind}: a delay of several hops arrives once, never early, attributes and receive count intact`, async ({
        expect,
        annotate,
      }) => {
        const delaySeconds = 7;
        const scratch = await hopScratch();
        try {
          const url = await scratch.create({ fifo });
          const { queue, hops } = await recordedQueue(scratch, url);
          expect(queue.bridgesDelays).toBe(true);
          expect(queue.capabilities.delay.nativeMaxSeconds).toBe(HOP_SECONDS);

          const eventId = `invoice_${kind}:due`;
          await publishDelayed(queue, eventId, delaySeconds);
          const { dueAt } = publishedHop(hops, eventId);
          const { consumer, arrivals } = recordArrivals(queue);
          await firstArrival(arrivals, dueAt);
          await sleep(QUIET_MS);
          await consumer.close();

          expect(arrivals).toHaveLength(1);
          const [arrival] = arrivals;
          expect(arrival).toMatchObject({
            eventId,
            receiveCount: expectedReceiveCount(fifo),
            attributes: ATTRIBUTES,
          });
          expect(arrival!.at, 'delivered before it was due').toBeGreaterThanOrEqual(dueAt);
          expect(arrival!.at - dueAt, 'delivered later than the bound').toBeLessThanOrEqual(LATE_BOUND_MS);

          // One chain of hops, none longer than SQS was allowed to hold, re-sent by the Queue at
          // least once. Not always ceil(7 / 2) sends: each next hop is cut to what is left, and a
          // hop that landed late (moto wakes a long poll about once a second) leaves less.
          expect(hops.map((hop) => hop.hop)).toEqual(hops.map((_, i) => i));
          expect(hops.length).toBeGreaterThanOrEqual(2);
          hops.forEach((hop, i) => {
            expect(hop).toMatchObject({ eventId, dueAt, receiveCount: 0, ok: true });
            expect(hop.delaySeconds).toBeLessThanOrEqual(HOP_SECONDS);
            // Each hop was held its whole delay: the next one is sent only once it was received.
            const previous = hops[i - 1];
            if (previous) {
              expect(hop.sentAt, `hop ${i - 1} came back early`).toBeGreaterThanOrEqual(
                previous.sentAt + previous.delaySeconds * 1000,
              );
            }
          });
          expect(await scratch.admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
          await annotate(`${timeline(hops, arrival!.at)}, ${arrival!.at - dueAt} ms after due`);
        } finally {
          await scratch.dispose();
        }
      });

      it(`${kind}: survives a consumer killed after it re-sent a hop and before it acked the old one`, async ({
        expect,
        annotate,
      }) => {
        const delaySeconds = 6;
        const scratch = await hopScratch();
        let crasher: HopCrasher | undefined;
        try {
          const url = await scratch.create({ fifo });
          crasher = spawnHopCrasher(url, CRASHER_LEASE_SECONDS);
          const { queue, hops } = await recordedQueue(scratch, url);
          await crasher.ready(READY_BOUND_MS);

          const eventId = `invoice_${kind}:crash`;
          await publishDelayed(queue, eventId, delaySeconds);
          const { dueAt } = publishedHop(hops, eventId);
          const resent = await crasher.resent(HOP_SECONDS * 1000 + 10_000);
          expect(resent).toEqual([
            expect.objectContaining({ eventId, dueAt, receiveCount: 0, hop: 1, ok: true }),
          ]);
          await crasher.kill();
          // The worst point: the next hop is in the queue, and the hop it replaces was never acked.
          expect(await scratch.admin.stats(url)).toMatchObject({ depth: depthHolding(1, 1), deadLetters: 0 });

          // An idempotent receiver: the effect happens once per event id, however often it arrives.
          const seen = new Set<string>();
          let effects = 0;
          const { consumer, arrivals } = recordArrivals(queue, (arrival) => {
            if (seen.has(arrival.eventId)) return;
            seen.add(arrival.eventId);
            effects++;
          });
          await firstArrival(arrivals, dueAt);
          // Well after the due time: a second chain of hops, where the crash made one, lands by then.
          await sleep(Math.max(QUIET_MS, dueAt + LATE_BOUND_MS - Date.now()));
          await consumer.close();

          expect(effects).toBe(1);
          expect([...seen]).toEqual([eventId]);
          expect(arrivals.length).toBeGreaterThanOrEqual(1);
          for (const arrival of arrivals) {
            expect(arrival).toMatchObject({ eventId, attributes: ATTRIBUTES });
            expect(arrival.at, 'delivered before it was due').toBeGreaterThanOrEqual(dueAt);
            expect(arrival.at - dueAt, 'delivered later than the bound').toBeLessThanOrEqual(LATE_BOUND_MS);
          }
          // FIFO absorbs the repeated re-send of hop 1 (same deduplication id); a standard queue
          // has no dedupe, so there the crash may leave two chains, and two deliveries.
          if (fifo) expect(arrivals).toHaveLength(1);
          expect(await scratch.admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
          const parentHops = hops.filter((hop) => hop.hop > 0);
          await annotate(
            `${arrivals.length} deliver${arrivals.length === 1 ? 'y' : 'ies'} (receive counts ${arrivals.map((a) => a.receiveCount).join(', ')}), ` +
              `${parentHops.length} hops re-sent after the takeover (${parentHops.map((h) => `#${h.hop}`).join(' ')})`,
          );
        } finally {
          await crasher?.kill();
          await scratch.dispose();
        }
      });
    }
  });
}
