import { describe, inject, it } from 'vitest';
import { waitUntil } from '../../../scripts/test-services/ports';
import { type Held, type Holder, spawnHolder } from './support/holder-process';
import { depthHolding, ScratchQueues } from './support/scratch-queues';
import { sqsEndpoint, sqsServer } from './support/sqs';

/** The holder's lease: the visibility timeout SQS holds its messages for. */
const LEASE_SECONDS = 2;
const MESSAGES = 3;
/** tsx compiles the fixture, the workspace sources and the AWS SDK before the holder can take anything. */
const HOLD_BOUND_MS = 20_000;
/** A dead holder's messages are back when its lease ends; the rest is slack for a busy machine. */
const REDELIVERY_BOUND_MS = 10_000;

interface Redelivery {
  eventId: string;
  receiveCount: number;
  /** Epoch ms when the handler saw it. */
  at: number;
}

if (!sqsEndpoint) {
  describe('sqs: a worker process killed while it holds messages', () => {
    it.skip(`no SQS server: ${inject('queueportServices').sqsUnavailable ?? 'see the test services summary'}`, () => {});
  });
} else {
  describe.concurrent('sqs: a worker process killed while it holds messages', () => {
    for (const fifo of [false, true]) {
      it(`${fifo ? 'fifo' : 'standard'}: each comes back once, not before the lease ended, receive count 2, none dead-lettered`, async ({
        expect,
      }) => {
        const scratch = await ScratchQueues.open('crash');
        let holder: Holder | undefined;
        try {
          const url = await scratch.create({ fifo });
          const queue = await scratch.open(url);
          const eventIds = Array.from({ length: MESSAGES }, (_, i) => `order_${i + 1}:paid`);
          await queue.publishBatch(
            eventIds.map((eventId) => ({
              envelope: { event_id: eventId, type: 'order.paid', payload: { eventId } },
              // One group, so the FIFO queue keeps their order (ungrouped ones each get a group of their own).
              ...(fifo ? { groupId: 'orders' } : {}),
            })),
          );

          holder = spawnHolder(url, LEASE_SECONDS, MESSAGES);
          const held = await holder.held(HOLD_BOUND_MS);
          expect(
            held.map(({ eventId, receiveCount }) => ({ eventId, receiveCount })).sort(byEventId),
          ).toEqual(eventIds.map((eventId) => ({ eventId, receiveCount: 1 })));
          await holder.kill();
          // Nothing was acked or released on the way out: all of them are still there, leased to the dead.
          expect(await scratch.admin.stats(url)).toMatchObject({
            depth: depthHolding(MESSAGES),
            deadLetters: 0,
          });

          const leaseEnds = new Map(held.map((h: Held) => [h.eventId, h.leaseExpiresAt]));
          const redeliveries: Redelivery[] = [];
          const consumer = queue.consume(
            async (delivery) => {
              redeliveries.push({
                eventId: delivery.envelope.event_id,
                receiveCount: delivery.receiveCount,
                at: Date.now(),
              });
            },
            { concurrency: MESSAGES, leaseSeconds: 10 },
          );
          await waitUntil(
            'the dead holder’s messages never reached the next worker',
            async () => consumer.stats.acked >= MESSAGES,
            { timeoutMs: REDELIVERY_BOUND_MS, intervalMs: 50 },
          );
          await consumer.close();

          // Once each, and on a FIFO queue in the order of their group, except on moto: moto 5.2.1
          // hands a group's timed-out messages back last first (its receive skips a group while
          // any sibling is still marked in flight, and clears those marks one message at a time).
          const seen = redeliveries.map(({ eventId, receiveCount }) => ({ eventId, receiveCount }));
          const inOrder = fifo && sqsServer !== 'moto';
          expect(inOrder ? seen : seen.sort(byEventId)).toEqual(
            eventIds.map((eventId) => ({ eventId, receiveCount: 2 })),
          );
          for (const { eventId, at } of redeliveries) {
            // SQS counts the visibility timeout from its receive, which came after the holder's clock reading.
            expect(at, `${eventId} came back before the holder's lease ended`).toBeGreaterThanOrEqual(
              leaseEnds.get(eventId)!,
            );
          }
          expect(consumer.stats).toMatchObject({
            received: MESSAGES,
            acked: MESSAGES,
            deadLettered: 0,
            errors: 0,
          });
          expect(await scratch.admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
        } finally {
          await holder?.kill();
          await scratch.dispose();
        }
      });
    }
  });
}

function byEventId(a: { eventId: string }, b: { eventId: string }): number {
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}
