import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry } from '@queueport/core';
import { afterEach, expect, it } from 'vitest';
import { spawnHolder as spawnHolderProcess } from '../../../scripts/crash-holder/holder-process';
import { waitUntil } from '../../../scripts/test-services/ports';
import { postgresQueueAdapter } from '../src';
import { schemasPerFile } from './support/postgres';

/** What the holder process imports: the workspace source of this adapter. */
const ADAPTER = {
  module: fileURLToPath(new URL('../src/index.ts', import.meta.url)),
  exportName: 'postgresQueueAdapter',
};
const LEASE_SECONDS = 2;
const registry = new AdapterRegistry([postgresQueueAdapter]);
const schemas = schemasPerFile('crash');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A worker process that holds what it takes until it is killed, on the workspace sources. */
function spawnHolder(url: string) {
  const holder = spawnHolderProcess({
    adapter: ADAPTER,
    queueUrl: url,
    leaseSeconds: LEASE_SECONDS,
    concurrency: 3,
  });
  cleanups.push(() => holder.kill());
  return holder;
}

it('a worker killed while it holds leases: each message comes back after the lease, once, to the next worker', async () => {
  const admin = await registry.openAdmin(schemas.next().providerUrl);
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: 'crash' });
  const publisher = await registry.openQueue(url);
  cleanups.push(() => publisher.close());
  const ids = ['order_1:paid', 'order_2:paid', 'order_3:paid'];
  await publisher.publishBatch(
    ids.map((id) => ({ envelope: { event_id: id, type: 'order.paid', payload: { id } } })),
  );

  const holder = spawnHolder(url);
  await waitUntil('the holder took all three', async () => holder.heldSoFar.length === 3, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  // A live holder extends its leases, so nothing moves while it runs, even past a lease.
  const next = await registry.openQueue(url);
  cleanups.push(() => next.close());
  const deliveries: { eventId: string; receiveCount: number }[] = [];
  next.consume(
    async (delivery) => {
      deliveries.push({ eventId: delivery.envelope.event_id, receiveCount: delivery.receiveCount });
    },
    { leaseSeconds: LEASE_SECONDS, waitSeconds: 1 },
  );
  await sleep(LEASE_SECONDS * 1000 + 1000);
  expect(deliveries).toEqual([]);

  await holder.kill();
  await waitUntil('the dead holder’s messages came back', async () => deliveries.length >= 3, {
    timeoutMs: 15_000,
    intervalMs: 50,
  });
  // Long enough for a second copy of any of them to show.
  await sleep(LEASE_SECONDS * 1000 + 1000);
  expect(deliveries.sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual(
    ids.map((eventId) => ({ eventId, receiveCount: 2 })),
  );
  expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
});
