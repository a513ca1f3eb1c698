import type { DriverUnderTest } from '@queueport/conformance';
import type { Clock } from '@queueport/core';
import { createInfraiAdapter } from '../../src';
import { type InfraiSimulator, startInfraiSimulator } from '../../src/testing';

/** The provider URL of a running simulator (plain HTTP on loopback). */
export function providerUrl(simulator: InfraiSimulator): URL {
  return new URL(`infrai://${new URL(simulator.url).host}?tls=false`);
}

/**
 * A fresh simulator on the run's clock with one scratch queue (redriven after 2 deliveries),
 * opened through the adapter by URL, as an application would; `missing` deletes the queue
 * right after opening, as if deleted under a worker.
 */
export async function simulatedQueue(
  clock: Clock,
  { missing = false, fifo = false }: { missing?: boolean; fifo?: boolean } = {},
): Promise<DriverUnderTest> {
  const simulator = await startInfraiSimulator({ clock });
  const adapter = createInfraiAdapter({ apiKey: simulator.apiKey });
  const admin = await adapter.admin!(providerUrl(simulator), {});
  const url = await admin.createQueue({
    name: 'conformance',
    redriveAfterReceives: 2,
    ...(fifo ? { settings: { fifo: true } } : {}),
  });
  const driver = await adapter.open(new URL(url), {});
  if (missing) await admin.deleteQueue(url);
  return {
    driver,
    dispose: async () => {
      await admin.close();
      await simulator.close();
    },
    inspect: {
      deadLetters: () => admin.listDeadLetters!(url, { limit: 100 }),
      stats: () => admin.stats(url),
      redriveDeadLetters: (limit: number) => admin.redriveDeadLetters!(url, { limit }),
    },
  };
}
