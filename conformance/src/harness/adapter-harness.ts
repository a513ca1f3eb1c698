import { randomUUID } from 'node:crypto';
import type { Clock, CreateQueueRequest, QueueAdmin, QueueOptions } from '@queueport/core';
import type { AdapterDefinition, Driver } from '@queueport/core/driver';
import { type DriverUnderTest, realTimeHarness, virtualTimeHarness } from './define-harness';
import type { ConformanceHarness, QueueUnderTest } from './harness';

/**
 * The redrive every scratch queue gets unless `createQueue` names its own: enough receives for
 * every property that redelivers (lease-expiry's rounds, a consumer's retry), few enough that
 * the `dead-letters` property waits out a handful of leases on real time, not a provider's
 * default of 1,000.
 */
export const SCRATCH_REDRIVE_AFTER_RECEIVES = 5;

export interface AdapterHarnessOptions
  extends Omit<ConformanceHarness, 'name' | 'createQueue' | 'inspects' | 'dropsConnection'> {
  /** Defaults to the adapter's scheme. */
  name?: string;
  /**
   * Settings for every scratch queue (e.g. `{ settings: { fifo: true } }`). `redriveAfterReceives`
   * defaults to `SCRATCH_REDRIVE_AFTER_RECEIVES`.
   */
  createQueue?: Omit<CreateQueueRequest, 'name'>;
  queueOptions?: Omit<QueueOptions, 'clock'>;
  /**
   * How to cut a driver's connection to the provider (a broker restart, a network cut), for the
   * `connection-drop` property: given the driver the harness opened, resolves once it may
   * reconnect. Without it that property is skipped.
   */
  dropConnection?: (driver: Driver) => Promise<void>;
}

/**
 * The suite for any adapter, from its definition and a provider URL: every run creates a
 * scratch queue through the adapter's admin surface, opens it by URL, and deletes it after,
 * however the run ends. Adapters that take a clock run on virtual time, the rest on real time.
 *
 *   describeConformance('memory', adapterHarness(memoryAdapter, 'memory://'));
 */
export function adapterHarness(
  definition: AdapterDefinition,
  providerUrl: string,
  options: AdapterHarnessOptions = {},
): ConformanceHarness {
  const { name = definition.scheme, createQueue, queueOptions, dropConnection, ...harnessOptions } = options;
  const request = { redriveAfterReceives: SCRATCH_REDRIVE_AFTER_RECEIVES, ...createQueue };
  /** A scratch queue; `missing` deletes it right after opening, as if deleted under a worker. */
  const open = async (clock: Clock | undefined, missing: boolean): Promise<DriverUnderTest> => {
    if (!definition.admin) {
      throw new Error(
        `${definition.packageName} has no admin surface: the suite needs one to create scratch queues`,
      );
    }
    const context = clock ? { clock } : {};
    const admin = await definition.admin(new URL(providerUrl), context);
    let url: string | undefined;
    let deleted = false;
    const cleanUp = async () => {
      try {
        if (url !== undefined && !deleted) {
          deleted = true;
          await admin.deleteQueue(url);
        }
      } finally {
        await admin.close();
      }
    };
    let driver: Driver;
    try {
      url = await admin.createQueue({ ...request, name: `conformance-${randomUUID().slice(0, 12)}` });
      driver = await definition.open(new URL(url), context);
      if (missing) {
        deleted = true;
        await admin.deleteQueue(url);
      }
    } catch (error) {
      // A queue made and then not opened is deleted here: nobody else knows its URL.
      await cleanUp().catch(() => {});
      throw error;
    }
    const queueUrl = url;
    return {
      driver,
      dispose: cleanUp,
      inspect: inspectOf(admin, queueUrl),
      ...(dropConnection ? { dropConnection: () => dropConnection(driver) } : {}),
    };
  };
  const shared = {
    ...(queueOptions ? { queueOptions } : {}),
    // Stats are part of every admin surface, so every scratch queue comes with them.
    inspects: definition.admin !== undefined,
    ...(dropConnection ? { dropsConnection: true } : {}),
  };
  return definition.virtualClock
    ? virtualTimeHarness(name, (clock) => open(clock, false), {
        ...shared,
        ...(harnessOptions.numRuns === undefined ? {} : { numRuns: harnessOptions.numRuns }),
        createMissingDriver: (clock) => open(clock, true),
      })
    : realTimeHarness(name, () => open(undefined, false), {
        ...harnessOptions,
        ...shared,
        createMissingDriver: () => open(undefined, true),
      });
}

/** What the admin surface shows of one queue: always its stats, the rest where it offers them. */
function inspectOf(admin: QueueAdmin, url: string): NonNullable<QueueUnderTest['inspect']> {
  const listDeadLetters = admin.listDeadLetters?.bind(admin);
  const redrive = admin.redriveDeadLetters?.bind(admin);
  const purge = admin.purge?.bind(admin);
  return {
    stats: () => admin.stats(url),
    ...(listDeadLetters ? { deadLetters: () => listDeadLetters(url, { limit: 100 }) } : {}),
    ...(redrive ? { redriveDeadLetters: (limit: number) => redrive(url, { limit }) } : {}),
    ...(purge ? { purge: () => purge(url) } : {}),
  };
}
