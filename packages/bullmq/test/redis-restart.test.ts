import { setTimeout as sleep } from 'node:timers/promises';
import {
  AdapterRegistry,
  openQueue,
  type PublishInput,
  type PublishReceipt,
  type Queue,
} from '@queueport/core';
import { Queue as BullQueue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { withDeadline } from '../../../scripts/test-services/deadline';
import { waitUntil } from '../../../scripts/test-services/ports';
import { startPrivateRedis } from '../../../scripts/test-services/private-redis';
import { bullmqAdapter } from '../src';

const QUEUE_NAME = 'restart';
const EVENTS = 200;
const BATCH = 10;
const OUTAGE_MS = 1000;
/** A publish unanswered this long is presumed lost with the connection, and sent again. */
const ATTEMPT_MS = 500;
/** How long one batch may go on failing: well past the outage and ioredis's reconnect backoff. */
const PUBLISH_BOUND_MS = 20_000;
/** For every event to arrive: the outage, the reconnect, and leases lost in it coming back. */
const DELIVERY_BOUND_MS = 30_000;
/** A close must not outlive the test: Redis is up again, so it has nothing to wait for. */
const CLOSE_BOUND_MS = 10_000;

// One list, run last-in first-out: the queues close before the Redis they talk to is stopped.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function closeWithin(what: string, close: () => Promise<void>): void {
  cleanups.push(() => withDeadline(`closing ${what}`, CLOSE_BOUND_MS, close(), () => {}));
}

/** Retries a batch until it is accepted; the event ids stay the same, so the queue absorbs repeats. */
function retryingPublisher(queue: Queue) {
  const stats = { failedAttempts: 0, sent: 0 };
  const publish = async (batch: PublishInput[]): Promise<PublishReceipt[]> => {
    const deadline = Date.now() + PUBLISH_BOUND_MS;
    for (;;) {
      stats.sent += batch.length;
      const attempt = queue.publishBatch(batch);
      // An abandoned attempt may still land once Redis is back: that is what the retry must survive.
      attempt.catch(() => {});
      try {
        return await withDeadline('publish', ATTEMPT_MS, attempt, () => {});
      } catch (error) {
        stats.failedAttempts++;
        if (Date.now() > deadline) {
          throw new Error(`a batch was still not accepted after ${PUBLISH_BOUND_MS} ms: ${String(error)}`);
        }
        await sleep(100);
      }
    }
  };
  return { publish, stats };
}

function envelopes(ids: readonly string[]): PublishInput[] {
  return ids.map((id) => ({ envelope: { event_id: id, type: 'order.placed', payload: { id } } }));
}

/** BullMQ's own count of the jobs there ever were: one per event id, however often it was sent. */
async function jobCounts(port: number): Promise<{ completed: number; failed: number }> {
  const queue = new BullQueue(QUEUE_NAME, { connection: { host: '127.0.0.1', port } });
  try {
    const { completed = 0, failed = 0 } = await queue.getJobCounts('completed', 'failed');
    return { completed, failed };
  } finally {
    await queue.close();
  }
}

describe('bullmq: Redis restarts under a running consumer and publisher', () => {
  it('loses no event: the consumer reconnects by itself, and retried publishes are deduped', async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.dispose());
    const url = `bullmq://127.0.0.1:${redis.port}/${QUEUE_NAME}?stalledIntervalMs=250`;
    // Publisher and consumer on connections of their own, as separate services would be.
    const consumerQueue = await openQueue(url, { adapters: [bullmqAdapter] });
    closeWithin('the consumer', () => consumerQueue.close());
    const publisherQueue = await openQueue(url, { adapters: [bullmqAdapter] });
    closeWithin('the publisher', () => publisherQueue.close());

    const receiveCounts = new Map<string, number[]>();
    const consumerErrors: string[] = [];
    consumerQueue.consume(
      async (delivery) => {
        const id = delivery.envelope.event_id;
        receiveCounts.set(id, [...(receiveCounts.get(id) ?? []), delivery.receiveCount]);
        // Work in flight, so the outage catches deliveries mid-handler and mid-ack.
        await sleep(5);
      },
      { concurrency: 5, leaseSeconds: 3, onError: (error) => consumerErrors.push(String(error)) },
    );

    const ids = Array.from({ length: EVENTS }, (_, i) => `order_${i}:placed`);
    const publisher = retryingPublisher(publisherQueue);
    const accepted = new Set<string>();
    let restarted: Promise<void> | undefined;
    for (let start = 0; start < EVENTS; start += BATCH) {
      if (start === EVENTS / 2) {
        // The next batch goes out while Redis is down, so the publisher meets the outage for sure.
        await redis.stop();
        restarted = sleep(OUTAGE_MS).then(() => redis.start());
        // Awaited below; a failed start meanwhile shows as the publisher's bound running out.
        restarted.catch(() => {});
      }
      for (const receipt of await publisher.publish(envelopes(ids.slice(start, start + BATCH)))) {
        accepted.add(receipt.eventId);
      }
      await sleep(10);
    }
    await restarted;
    expect(publisher.stats.failedAttempts).toBeGreaterThan(0);
    expect([...accepted].sort()).toEqual([...ids].sort());

    await waitUntil(
      'not every published event was received',
      async () => {
        const missing = ids.filter((id) => !receiveCounts.has(id));
        if (missing.length === 0) return true;
        const errors = consumerErrors.slice(-3).join(' | ') || 'none';
        throw new Error(
          `${missing.length} missing, e.g. ${missing.slice(0, 5).join(', ')}; consumer errors: ${errors}`,
        );
      },
      { timeoutMs: DELIVERY_BOUND_MS, intervalMs: 100 },
    );
    expect([...receiveCounts.keys()].sort()).toEqual([...ids].sort());
    // A repeat may only be a redelivery of the one job (its receive count goes up), never a second job.
    const firstDeliveredTwice = ids.filter((id) => receiveCounts.get(id)!.filter((n) => n === 1).length > 1);
    expect(firstDeliveredTwice).toEqual([]);

    const admin = await new AdapterRegistry([bullmqAdapter]).openAdmin(url);
    closeWithin('the admin', () => admin.close());
    await waitUntil(
      'jobs were left in the queue after every event was received',
      async () => {
        const { depth } = await admin.stats(url);
        if (depth !== 0) throw new Error(`depth ${depth}`);
        return true;
      },
      { timeoutMs: DELIVERY_BOUND_MS, intervalMs: 100 },
    );
    expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
    // More was sent than there are events (the retries), yet BullMQ holds exactly one job per event.
    expect(publisher.stats.sent).toBeGreaterThan(EVENTS);
    expect(await jobCounts(redis.port)).toEqual({ completed: EVENTS, failed: 0 });
  });
});
