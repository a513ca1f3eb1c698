import { randomUUID } from 'node:crypto';
import type { Clock, CreateQueueRequest, QueueOptions } from '@queueport/core';
import type { AdapterDefinition } from '@queueport/core/driver';
import { type DriverUnderTest, realTimeHarness, virtualTimeHarness } from './define-harness';
import type { ConformanceHarness } from './harness';

export interface AdapterHarnessOptions extends Omit<ConformanceHarness, 'name' | 'createQueue'> {
  /** Defaults to the adapter's scheme. */
  name?: string;
  /** Settings for every scratch queue (e.g. `{ settings: { fifo: true } }`). */
  createQueue?: Omit<CreateQueueRequest, 'name'>;
  queueOptions?: Omit<QueueOptions, 'clock'>;
}

/**
 * The suite for any adapter, from its definition and a provider URL: every run creates a
 * scratch queue through the adapter's admin surface, opens it by URL, and deletes it after.
 * Adapters that take a clock run on virtual time, the rest on real time.
 *
 *   describeConformance('memory', adapterHarness(memoryAdapter, 'memory://'));
 */
export function adapterHarness(
  definition: AdapterDefinition,
  providerUrl: string,
  options: AdapterHarnessOptions = {},
): ConformanceHarness {
  const { name = definition.scheme, createQueue, queueOptions, ...harnessOptions } = options;
  /** A scratch queue; `missing` deletes it right after opening, as if deleted under a worker. */
  const open = async (clock: Clock | undefined, missing: boolean): Promise<DriverUnderTest> => {
    if (!definition.admin) {
      throw new Error(
        `${definition.packageName} has no admin surface: the suite needs one to create scratch queues`,
      );
    }
    const context = clock ? { clock } : {};
    const admin = await definition.admin(new URL(providerUrl), context);
    const url = await admin.createQueue({ ...createQueue, name: `conformance-${randomUUID().slice(0, 12)}` });
    const driver = await definition.open(new URL(url), context);
    if (missing) await admin.deleteQueue(url);
    const listDeadLetters = admin.listDeadLetters?.bind(admin);
    const redrive = admin.redriveDeadLetters?.bind(admin);
    const purge = admin.purge?.bind(admin);
    return {
      driver,
      dispose: async () => {
        try {
          if (!missing) await admin.deleteQueue(url);
        } finally {
          await admin.close();
        }
      },
      ...(listDeadLetters
        ? {
            inspect: {
              deadLetters: () => listDeadLetters(url, { limit: 100 }),
              stats: () => admin.stats(url),
              ...(redrive ? { redriveDeadLetters: (limit: number) => redrive(url, { limit }) } : {}),
              ...(purge ? { purge: () => purge(url) } : {}),
            },
          }
        : {}),
    };
  };
  const shared = { ...(queueOptions ? { queueOptions } : {}) };
  return definition.virtualClock
    ? virtualTimeHarness(name, (clock) => open(clock, false), {
        ...shared,
        ...(harnessOptions.numRuns === undefined ? {} : { numRuns: harnessOptions.numRuns }),
        createMissingDriver: (clock) => open(clock, true),
        inspects: definition.admin !== undefined,
      })
    : realTimeHarness(name, () => open(undefined, false), {
        ...shared,
        ...harnessOptions,
        createMissingDriver: () => open(undefined, true),
        inspects: definition.admin !== undefined,
      });
}
