import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterRegistry, Queue } from '@queueport/core';
import { afterEach, expect, it } from 'vitest';
import { waitUntil } from '../../../scripts/test-services/ports';
import { type PostgresDriver, postgresQueueAdapter } from '../src';
import { schemasPerFile, terminateBackends } from './support/postgres';

const registry = new AdapterRegistry([postgresQueueAdapter]);
const schemas = schemasPerFile('connloss');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function queueOn(url: string): Promise<{ queue: Queue; driver: PostgresDriver }> {
  const driver = (await postgresQueueAdapter.open(new URL(url), {})) as PostgresDriver;
  const queue = new Queue(driver);
  cleanups.push(() => queue.close());
  return { queue, driver };
}

it('keeps working with nothing lost while its backends are terminated again and again', async () => {
  const admin = await registry.openAdmin(schemas.next({ pollIntervalMs: '200' }).providerUrl);
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: 'loss' });
  const publisher = await queueOn(url);
  const consumer = await queueOn(url);
  const seen = new Map<string, number>();
  const worker = consumer.queue.consume(
    async (delivery) => {
      seen.set(delivery.envelope.event_id, (seen.get(delivery.envelope.event_id) ?? 0) + 1);
    },
    { concurrency: 4, leaseSeconds: 2, waitSeconds: 2 },
  );
  const total = 60;
  let terminated = 0;
  for (let i = 0; i < total; i++) {
    // The Queue retries what a dead connection failed (UNAVAILABLE), so each publish lands.
    await publisher.queue.publish({ envelope: { event_id: `evt_${i}`, type: 'order.paid', payload: { i } } });
    if (i % 10 === 5) {
      terminated += await terminateBackends(consumer.driver.applicationName);
      terminated += await terminateBackends(publisher.driver.applicationName);
    }
    await sleep(20);
  }
  expect(terminated).toBeGreaterThan(0);
  await waitUntil('every message was delivered', async () => seen.size === total, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  await waitUntil('every message was acked', async () => (await admin.stats(url)).depth === 0, {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });

  await worker.close();
});

it('a long poll whose LISTEN connection is cut listens again, and a publish wakes it long before its next poll', async () => {
  // Polls 10 s apart: a wake inside 2 s can only be the notification.
  const admin = await registry.openAdmin(schemas.next({ pollIntervalMs: '10000' }).providerUrl);
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: 'relisten' });
  const publisher = await queueOn(url);
  const consumer = await queueOn(url);
  const waiting = consumer.queue.receive({ maxMessages: 1, waitSeconds: 15 });
  await sleep(300);
  expect(await terminateBackends(consumer.driver.applicationName)).toBeGreaterThan(0);
  await sleep(500);
  const started = performance.now();
  await publisher.queue.publish({ envelope: { event_id: 'after-cut', type: 'order.paid', payload: {} } });
  const [delivery] = await waiting;
  expect(delivery?.envelope.event_id).toBe('after-cut');
  expect(performance.now() - started).toBeLessThan(2_000);
  // A release notifies too: a receive waiting for it is woken long before its next poll.
  const again = consumer.queue.receive({ maxMessages: 1, waitSeconds: 15 });
  await sleep(300);
  const releasedAt = performance.now();
  await delivery!.release();
  const [redelivered] = await again;
  expect(redelivered).toMatchObject({ receiveCount: 2 });
  expect(performance.now() - releasedAt).toBeLessThan(2_000);
  await redelivered!.ack();
});

it('an aborted long poll ends promptly with nothing', async () => {
  const admin = await registry.openAdmin(schemas.next().providerUrl);
  cleanups.push(() => admin.close());
  const { queue } = await queueOn(await admin.createQueue({ name: 'abort' }));
  const controller = new AbortController();
  const started = performance.now();
  const waiting = queue.receive({ maxMessages: 1, waitSeconds: 20, signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  expect(await waiting).toEqual([]);
  expect(performance.now() - started).toBeLessThan(1_500);
});
