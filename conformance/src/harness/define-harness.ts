import { Queue, type QueueOptions } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import type { ConformanceHarness, HarnessClock } from './harness';

const FAST_RETRY: QueueOptions['retry'] = { maxAttempts: 3, baseMs: 1, maxMs: 20 };

/** A driver for one run, and how to remove what making it created (a scratch queue). */
export type DriverUnderTest = Driver | { driver: Driver; dispose?: () => Promise<void> };

function unwrap(made: DriverUnderTest): { driver: Driver; dispose?: (() => Promise<void>) | undefined } {
  return 'driver' in made && typeof (made as { publish?: unknown }).publish !== 'function'
    ? made
    : { driver: made as Driver };
}

/**
 * A harness for a driver that takes an injectable clock: every run gets its own VirtualClock, so
 * a 7-day delay is checked in microseconds.
 */
export function virtualTimeHarness(
  name: string,
  createDriver: (clock: VirtualClock) => DriverUnderTest | Promise<DriverUnderTest>,
  options: { numRuns?: number; queueOptions?: Omit<QueueOptions, 'clock'> } = {},
): ConformanceHarness {
  return {
    name,
    ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
    async createQueue() {
      const clock = new VirtualClock();
      const { driver, dispose } = unwrap(await createDriver(clock));
      const queue = new Queue(driver, { retry: FAST_RETRY, ...options.queueOptions, clock });
      const harnessClock: HarnessClock = {
        virtual: true,
        now: () => clock.now(),
        advance: (ms) => clock.advance(ms),
      };
      return { queue, clock: harnessClock, dispose: disposer(queue, dispose) };
    },
  };
}

/** A harness for a real provider: time really passes, so the suite keeps its waits short. */
export function realTimeHarness(
  name: string,
  createDriver: () => Promise<DriverUnderTest>,
  options: Omit<ConformanceHarness, 'name' | 'createQueue'> & {
    queueOptions?: Omit<QueueOptions, 'clock'>;
  } = {},
): ConformanceHarness {
  const { queueOptions, ...rest } = options;
  return {
    name,
    ...rest,
    async createQueue() {
      const { driver, dispose } = unwrap(await createDriver());
      const queue = new Queue(driver, { retry: FAST_RETRY, ...queueOptions });
      return { queue, clock: realClock, dispose: disposer(queue, dispose) };
    },
  };
}

function disposer(queue: Queue, dispose: (() => Promise<void>) | undefined): () => Promise<void> {
  return async () => {
    await queue.close();
    await dispose?.();
  };
}

export const realClock: HarnessClock = {
  virtual: false,
  now: () => Date.now(),
  advance: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
