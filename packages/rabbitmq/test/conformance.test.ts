import { adapterHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { afterAll } from 'vitest';
import { rabbitmqAdapter } from '../src';
import { closeConnections, listQueues, providerUrl, withBroker } from './support/rabbitmq';

/** The suite's connection drop: the broker closes every connection of the driver. */
async function dropConnection(driver: Parameters<typeof closeConnections>[0]): Promise<void> {
  if ((await closeConnections(driver)) === 0) throw new Error('the driver had no connection to drop');
}

// The whole suite on the shared broker, on real time (leases on timers, delays on TTLs).
// Skipped, by the suite's own reasons:
// - long-delay, retention: need a virtual clock; the broker's TTLs run on real time.
// - dedupe, dedupe-window: the manifest declares no dedupe (the ledger dedupes, not the queue).
// - ordering: the manifest declares none (releases requeue, delayed copies re-enter at the back).
describeConformance('rabbitmq', adapterHarness(rabbitmqAdapter, providerUrl(), { dropConnection }), {
  numRuns: 2,
});

// The harness deletes each queue it made; a delay queue still holding a 7-day message would
// outlive it by a week (it expires a minute after its TTL), so orphans go with the file.
afterAll(async () => {
  const names = new Set((await listQueues()).map((queue) => queue.name));
  const orphans = [...names].filter((name) => {
    const parent = /^(conformance-.+)\.delay\.\d+$/.exec(name)?.[1];
    return parent !== undefined && !names.has(parent);
  });
  await withBroker(async (channel) => {
    for (const name of orphans) await channel.deleteQueue(name);
  });
});
