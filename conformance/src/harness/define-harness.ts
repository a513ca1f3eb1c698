import { Queue, type QueueOptions } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import type { ConformanceHarness, HarnessClock, QueueUnderTest } from './harness';

const FAST_RETRY: QueueOptions['retry'] = { maxAttempts: 3, baseMs: 1, maxMs: 20 };

/**
 * The harness's Queue options: fast retries, and hooks that record what the Queue had to absorb
 * (a body it could not read, a bridge hop it could not re-send). Every message a property
 * publishes goes through the Queue, so either one is a driver's fault; the caller's own hooks
 * still run.
 */
function harnessQueueOptions(
  options: Omit<QueueOptions, 'clock'> | undefined,
  incidents: string[],
  injectsFaults: boolean,
): Omit<QueueOptions, 'clock'> {
  const hooks = options?.hooks;
  return {
    retry: FAST_RETRY,
    ...options,
    hooks: {
      ...hooks,
      onInvalidMessage: (info) => {
        incidents.push(
          `the Queue received a body it could not read (message ${info.messageId}, receive ${info.receiveCount}): ${info.error.message}`,
        );
        hooks?.onInvalidMessage?.(info);
      },
      onBridgeError: (info) => {
        if (!injectsFaults)
          incidents.push(`a delay-bridge hop of ${info.eventId} could not be re-sent: ${info.error.message}`);
        hooks?.onBridgeError?.(info);
      },
    },
  };
}

/**
 * A driver fault the Queue repaired (more messages than asked for, a receipt twice) is still the
 * driver's fault: recorded as an incident, so the run fails with it.
 */
function recordDriverFaults(queue: Queue, incidents: string[]): void {
  queue.on('driver-fault', (fault) => {
    incidents.push(
      `the Queue repaired a driver fault on ${fault.operation} (${fault.fault}): ${fault.error.message}`,
    );
  });
}

/**
 * A driver for one run, how to remove what making it created (a scratch queue), and what the
 * provider's admin surface shows of it.
 */
export type DriverUnderTest =
  | Driver
  | {
      driver: Driver;
      dispose?: () => Promise<void>;
      inspect?: QueueUnderTest['inspect'];
      /** Cuts the driver's connection to its provider (see `QueueUnderTest.dropConnection`). */
      dropConnection?: () => Promise<void>;
    };

type Unwrapped = Exclude<DriverUnderTest, Driver>;

function unwrap(made: DriverUnderTest): Unwrapped {
  return 'driver' in made && typeof (made as { publish?: unknown }).publish !== 'function'
    ? (made as Unwrapped)
    : { driver: made as Driver };
}

/**
 * A harness for a driver that takes an injectable clock: every run gets its own VirtualClock, so
 * a 7-day delay is checked in microseconds.
 */
export function virtualTimeHarness(
  name: string,
  createDriver: (clock: VirtualClock) => DriverUnderTest | Promise<DriverUnderTest>,
  options: {
    numRuns?: number;
    queueOptions?: Omit<QueueOptions, 'clock'>;
    /** A driver over a queue that does not exist, for the `missing-queue` property. */
    createMissingDriver?: (clock: VirtualClock) => DriverUnderTest | Promise<DriverUnderTest>;
    /** Whether every driver it creates comes with `inspect` (and its `stats`). */
    inspects?: boolean;
    /** Whether every driver it creates comes with `dropConnection`. */
    dropsConnection?: boolean;
    /** The driver fails calls on purpose (a crash test): failed bridge hops are expected then. */
    injectsFaults?: boolean;
  } = {},
): ConformanceHarness {
  const open = async (create: (clock: VirtualClock) => DriverUnderTest | Promise<DriverUnderTest>) => {
    const clock = new VirtualClock();
    const { driver, dispose, inspect, dropConnection } = unwrap(await create(clock));
    const incidents: string[] = [];
    const queue = new Queue(driver, {
      ...harnessQueueOptions(options.queueOptions, incidents, options.injectsFaults === true),
      clock,
    });
    recordDriverFaults(queue, incidents);
    const harnessClock: HarnessClock = {
      virtual: true,
      now: () => clock.now(),
      advance: (ms) => clock.advance(ms),
    };
    return {
      queue,
      clock: harnessClock,
      incidents,
      dispose: disposer(queue, dispose),
      ...(inspect ? { inspect } : {}),
      ...(dropConnection ? { dropConnection } : {}),
    };
  };
  const missing = options.createMissingDriver;
  return {
    name,
    ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
    ...(options.inspects ? { inspects: true } : {}),
    ...(options.dropsConnection ? { dropsConnection: true } : {}),
    createQueue: () => open(createDriver),
    ...(missing ? { createMissingQueue: () => open(missing) } : {}),
  };
}

/** A harness for a real provider: time really passes, so the suite keeps its waits short. */
export function realTimeHarness(
  name: string,
  createDriver: () => Promise<DriverUnderTest>,
  options: Omit<ConformanceHarness, 'name' | 'createQueue' | 'createMissingQueue'> & {
    queueOptions?: Omit<QueueOptions, 'clock'>;
    createMissingDriver?: () => Promise<DriverUnderTest>;
    /** The driver fails calls on purpose (a crash test): failed bridge hops are expected then. */
    injectsFaults?: boolean;
  } = {},
): ConformanceHarness {
  const { queueOptions, createMissingDriver, injectsFaults = false, ...rest } = options;
  const open = async (create: () => Promise<DriverUnderTest>) => {
    const { driver, dispose, inspect, dropConnection } = unwrap(await create());
    const incidents: string[] = [];
    const queue = new Queue(driver, harnessQueueOptions(queueOptions, incidents, injectsFaults));
    recordDriverFaults(queue, incidents);
    return {
      queue,
      clock: realClock,
      incidents,
      dispose: disposer(queue, dispose),
      ...(inspect ? { inspect } : {}),
      ...(dropConnection ? { dropConnection } : {}),
    };
  };
  return {
    name,
    ...rest,
    createQueue: () => open(createDriver),
    ...(createMissingDriver ? { createMissingQueue: () => open(createMissingDriver) } : {}),
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
