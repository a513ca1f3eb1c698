import type { Capabilities, DeadLetterRecord, Queue, QueueStats } from '@queueport/core';

/** Time as a property run sees it: moved (virtual) or waited out (real). */
export interface HarnessClock {
  readonly virtual: boolean;
  now(): number;
  /** Lets `ms` pass: instantly on a virtual clock, by really waiting on a real one. */
  advance(ms: number): Promise<void>;
}

/** One fresh, empty queue for one property run, with the clock its driver lives by. */
export interface QueueUnderTest {
  queue: Queue;
  clock: HarnessClock;
  /**
   * What the Queue had to absorb during the run (unreadable bodies, failed bridge hops), as the
   * harness's hooks recorded it. The session fails a run that leaves any: every message a
   * property publishes goes through the Queue, so each one is the driver's fault.
   */
  incidents?: readonly string[];
  /** Deletes what the run created. Defaults to `queue.close()`. */
  dispose?(): Promise<void>;
  /**
   * Cuts the driver's connection to the provider, as a broker restart or a network cut would,
   * and resolves once the driver may reconnect. Leases taken before it must end as the manifest
   * says (redelivered after their lease at the latest, their receipts stale), and the queue
   * must work again afterwards. The `connection-drop` property is skipped without it.
   */
  dropConnection?(): Promise<void>;
  /**
   * Records a check the property could not make here (the provider reports a null depth, the
   * admin surface has no purge), so the report says what was left unchecked. The runner sets it.
   */
  note?(text: string): void;
  /**
   * What only the provider's admin surface can show (stats, the dead letters). Properties that
   * need it are skipped, with the reason, when the harness gives none.
   */
  inspect?: {
    /** Where the admin surface can list them; the dead letters are then looked for there. */
    deadLetters?(): Promise<DeadLetterRecord[]>;
    /** The admin surface's view of this queue, for the `admin-surface` property. */
    stats?(): Promise<QueueStats>;
    redriveDeadLetters?(limit: number): Promise<number>;
    purge?(): Promise<void>;
  };
}

/**
 * What the suite needs from an adapter author: a way to make fresh queues. Everything the
 * properties ask of the queue goes through the portable Queue, never the driver.
 */
export interface ConformanceHarness {
  name: string;
  createQueue(): Promise<QueueUnderTest>;
  /**
   * A queue over a queue that does not exist (deleted after it was opened, or never created):
   * every call must fail with NOT_FOUND. The `missing-queue` property is skipped without it.
   */
  createMissingQueue?(): Promise<QueueUnderTest>;
  /** Whether every queue it creates comes with `inspect` and its `stats` (the admin surface's view). */
  inspects?: boolean;
  /** Whether every queue it creates comes with `dropConnection`. */
  dropsConnection?: boolean;
  /** Generated cases per property. Default 100 on virtual time, 8 on real time. */
  numRuns?: number;
  /**
   * Real-time providers only. How long a receive may wait for a message that should be there
   * (long-poll), and how much later than due a provider may surface a message (e.g. BullMQ's
   * stall check after a lost lock). Properties never assert an upper bound on speed beyond this.
   * The defaults suit a provider with a 1 s minimum lease and a 20 s long poll.
   */
  timing?: {
    /** Default 1 s, never more than the manifest's long-poll maximum. */
    receiveWaitSeconds?: number;
    /** Default 1 s. */
    slackSeconds?: number;
    /** Longest delay a property will really wait out in one run. Default 3 s. */
    maxRealWaitSeconds?: number;
  };
}

export interface ResolvedTiming {
  virtual: boolean;
  /** Never more than the manifest's long-poll maximum. */
  receiveWaitSeconds: number;
  slackMs: number;
  /**
   * How late a delayed message may surface: the slack, plus up to 1 s where the Queue bridges
   * delays on a whole-second provider (a hop rounds the time left up, never down).
   */
  dueSlackMs: number;
  maxRealWaitSeconds: number;
  /**
   * On real time, the lease a property waits out. Derived so that it outlasts every wait a
   * drain makes while holding it (one empty long poll, the slack, a second of work): a lease
   * shorter than the long poll would hand the held messages back on every receive.
   */
  shortLeaseSeconds: number;
}

export function resolveTiming(
  harness: ConformanceHarness,
  clock: HarnessClock,
  caps: Capabilities,
): ResolvedTiming {
  const slackMs = clock.virtual ? 0 : (harness.timing?.slackSeconds ?? 1) * 1000;
  const bridged = caps.delay.nativeMaxSeconds < caps.delay.maxSeconds;
  const receiveWaitSeconds = clock.virtual
    ? 0
    : Math.min(caps.longPollMaxSeconds, harness.timing?.receiveWaitSeconds ?? 1);
  const { min, max } = caps.leaseSeconds;
  return {
    virtual: clock.virtual,
    receiveWaitSeconds,
    slackMs,
    dueSlackMs: slackMs + (bridged && !caps.delay.fractional ? 1000 : 0),
    maxRealWaitSeconds: harness.timing?.maxRealWaitSeconds ?? 3,
    shortLeaseSeconds: Math.min(max, Math.max(min, 1, Math.ceil(receiveWaitSeconds + slackMs / 1000 + 1))),
  };
}
