import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, openQueue, type Queue } from '@queueport/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Held, type Holder, spawnHolder } from '../../../scripts/crash-holder/holder-process';
import { waitUntil } from '../../../scripts/test-services/ports';
import { bullmqAdapter } from '../src';
import { bullmqProviderUrl } from './support/redis';

const LEASE_SECONDS = 2;
const STALLED_INTERVAL_MS = 250;
/** tsx compiles the fixture and the workspace sources before the holder can take anything. */
const HOLD_BOUND_MS = 20_000;
/** A dead holder's job is back after its lease and two stalled checks; the rest is slack for a busy machine. */
const REDELIVERY_BOUND_MS = 10_000;
/** Past another lease and its stalled checks: long enough for a second copy to show up. */
const QUIET_MS = LEASE_SECONDS * 1000 + 1000;

const registry = new AdapterRegistry([bullmqAdapter]);
/** What the holder process imports: the workspace source of this adapter. */
const ADAPTER = {
  module: fileURLToPath(new URL('../src/index.ts', import.meta.url)),
  exportName: 'bullmqAdapter',
};
const cleanups: Array<() => Promise<void>> = [];
const holders: Holder[] = [];

afterEach(async () => {
  await Promise.allSettled(holders.splice(0).map((holder) => holder.kill()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let queues = 0;
/** A queue under a key prefix of its own on the shared test Redis; deleted after the test. */
async function scratchQueue(): Promise<{ url: string; provider: string; publisher: Queue }> {
  const provider = bullmqProviderUrl({
    prefix: `qp-crash-${process.pid}-${++queues}`,
    stalledIntervalMs: STALLED_INTERVAL_MS,
  });
  const url = new URL(provider);
  url.pathname = '/crash';
  const publisher = await openQueue(url.href, { adapters: [bullmqAdapter] });
  cleanups.push(async () => {
    await publisher.close();
    const admin = await registry.openAdmin(provider);
    await admin.deleteQueue(url.href).finally(() => admin.close());
  });
  return { url: url.href, provider, publisher };
}

function holder(url: string): Holder {
  const spawned = spawnHolder({ adapter: ADAPTER, queueUrl: url, leaseSeconds: LEASE_SECONDS });
  holders.push(spawned);
  return spawned;
}

/** A worker in the test process that records every delivery and acks it. */
async function recordingWorker(url: string): Promise<Held[]> {
  const queue = await openQueue(url, { adapters: [bullmqAdapter] });
  cleanups.push(() => queue.close());
  const deliveries: Held[] = [];
  queue.consume(
    async (delivery) => {
      deliveries.push({ eventId: delivery.envelope.event_id, receiveCount: delivery.receiveCount });
    },
    { leaseSeconds: LEASE_SECONDS },
  );
  return deliveries;
}

/** Waits for the first delivery, then long enough for a second copy to show, and returns them all. */
async function deliveriesAfterQuiet(deliveries: Held[]): Promise<Held[]> {
  await waitUntil('the dead holder’s job never reached the next worker', async () => deliveries.length > 0, {
    timeoutMs: REDELIVERY_BOUND_MS,
    intervalMs: 50,
  });
  await sleep(QUIET_MS);
  return [...deliveries];
}

/** Stalls must never count against the job: BullMQ failed nothing, and nothing is left behind. */
async function expectCompletedNotFailed(provider: string, url: string): Promise<void> {
  const admin = await registry.openAdmin(provider);
  try {
    expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
    expect(await admin.listDeadLetters!(url, { limit: 10 })).toEqual([]);
  } finally {
    await admin.close();
  }
}

function publishOne(publisher: Queue, eventId: string) {
  return publisher.publish({ envelope: { event_id: eventId, type: 'order.paid', payload: { eventId } } });
}

describe('bullmq: a worker process killed while it holds a job', () => {
  it('hands the job to the next worker once, receive count 2, and BullMQ never fails it', async () => {
    const { url, provider, publisher } = await scratchQueue();
    await publishOne(publisher, 'order_1:paid');
    const first = holder(url);
    expect(await first.held(HOLD_BOUND_MS)).toEqual({ eventId: 'order_1:paid', receiveCount: 1 });

    const deliveries = await recordingWorker(url);
    // Past its lease: a live holder extends it, so the job must stay where it is until the kill.
    await sleep(QUIET_MS);
    expect(deliveries).toEqual([]);

    await first.kill();
    expect(await deliveriesAfterQuiet(deliveries)).toEqual([{ eventId: 'order_1:paid', receiveCount: 2 }]);
    await expectCompletedNotFailed(provider, url);
  });

  it('survives two holders killed in a row: the third worker gets it, receive count 3, not dead-lettered', async () => {
    const { url, provider, publisher } = await scratchQueue();
    await publishOne(publisher, 'order_2:paid');
    const first = holder(url);
    expect(await first.held(HOLD_BOUND_MS)).toEqual({ eventId: 'order_2:paid', receiveCount: 1 });
    await first.kill();

    // The second holder's own stalled checker is what hands it the first one's job.
    const second = holder(url);
    expect(await second.held(HOLD_BOUND_MS + REDELIVERY_BOUND_MS)).toEqual({
      eventId: 'order_2:paid',
      receiveCount: 2,
    });
    await second.kill();

    const deliveries = await recordingWorker(url);
    expect(await deliveriesAfterQuiet(deliveries)).toEqual([{ eventId: 'order_2:paid', receiveCount: 3 }]);
    await expectCompletedNotFailed(provider, url);
  });
});
