import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterRegistry, Queue } from '@queueport/core';
import { afterEach, expect, it } from 'vitest';
import { waitUntil } from '../../../scripts/test-services/ports';
import { type RabbitmqDriver, rabbitmqAdapter } from '../src';
import { closeConnections, providerUrl, queuesPerFile } from './support/rabbitmq';

const registry = new AdapterRegistry([rabbitmqAdapter]);
const queues = queuesPerFile('connloss');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function queueOn(url: string): Promise<{ queue: Queue; driver: RabbitmqDriver }> {
  const driver = (await rabbitmqAdapter.open(new URL(url), {})) as RabbitmqDriver;
  const queue = new Queue(driver);
  cleanups.push(() => queue.close());
  return { queue, driver };
}

it('leases held through a dropped connection go stale, their messages come back, and nothing is lost', async () => {
  const admin = await registry.openAdmin(providerUrl());
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: queues.next() });
  const { queue, driver } = await queueOn(url);
  const total = 5;
  await queue.publishBatch(
    Array.from({ length: total }, (_, i) => ({
      envelope: { event_id: `held_${i}`, type: 'order.paid', payload: { i } },
    })),
  );
  const held = await queue.receive({ maxMessages: total, leaseSeconds: 300, waitSeconds: 2 });
  expect(held.length).toBeGreaterThan(0);
  expect(await closeConnections(driver)).toBeGreaterThan(0);

  // Every old receipt is refused by the driver itself: none of them reaches the new channel,
  // which a stale delivery tag would close.
  const stale = await queue.ackBatch(held);
  expect(stale.every((result) => !result.ok && result.error.code === 'LEASE_LOST')).toBe(true);
  const back = new Map<string, number>();
  await waitUntil(
    'every message came back',
    async () => {
      for (const delivery of await queue.receive({ maxMessages: 10, leaseSeconds: 60, waitSeconds: 1 })) {
        back.set(delivery.envelope.event_id, delivery.receiveCount);
        await delivery.ack();
      }
      return back.size === total;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  for (const delivery of held) expect(back.get(delivery.envelope.event_id)).toBe(delivery.receiveCount + 1);
  expect(await queue.receive({ maxMessages: 10, waitSeconds: 1 })).toEqual([]);
});

it('a consumer keeps working with nothing lost while its connections are closed again and again', async () => {
  const admin = await registry.openAdmin(providerUrl());
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: queues.next() });
  const publisher = await queueOn(url);
  const consumer = await queueOn(url);
  const seen = new Map<string, number>();
  const worker = consumer.queue.consume(
    async (delivery) => {
      seen.set(delivery.envelope.event_id, (seen.get(delivery.envelope.event_id) ?? 0) + 1);
    },
    { concurrency: 4, leaseSeconds: 2, waitSeconds: 2 },
  );
  cleanups.push(() => worker.close());
  const total = 30;
  let closed = 0;
  for (let i = 0; i < total; i++) {
    // The Queue retries what a dropped connection failed (UNAVAILABLE), so each publish lands.
    await publisher.queue.publish({ envelope: { event_id: `evt_${i}`, type: 'order.paid', payload: { i } } });
    if (i % 10 === 5) {
      closed += await closeConnections(consumer.driver);
      closed += await closeConnections(publisher.driver);
    }
    await sleep(20);
  }
  expect(closed).toBeGreaterThan(0);
  await waitUntil('every message was delivered', async () => seen.size === total, {
    timeoutMs: 60_000,
    intervalMs: 50,
  });
  await worker.close();
  // What was acked stays acked; whatever was in flight at a drop came back and was handled.
  const drain = await queueOn(url);
  expect(await drain.queue.receive({ maxMessages: 10, waitSeconds: 2 })).toEqual([]);
  expect(await admin.stats(url)).toMatchObject({ deadLetters: 0 });
});
