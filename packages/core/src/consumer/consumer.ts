import { setImmediate as nextTurn } from 'node:timers/promises';
import { QueueError } from '../errors';
import { checkOptions } from '../options';
import type { Delivery } from '../queue/delivery';
import { checkLeaseSeconds, checkWaitSeconds } from '../queue/message-checks';
import type { Queue } from '../queue/queue';
import { type BackoffPolicy, backoffDelay, type RetryPolicy, resolveRetryPolicy } from '../retry';
import { DEFAULT_REDELIVERY, decideOnFailure } from './failure-policy';
import { type DeadLetterSink, giveUpDelivery } from './give-up';
import { LeaseKeeper, LeaseLostSignal } from './lease-keeper';

export interface HandlerContext {
  /** Aborted when the lease is lost: the work may be done twice, so stop side effects if you can. */
  signal: AbortSignal;
}

export type Handler = (delivery: Delivery, context: HandlerContext) => Promise<void>;

export interface ConsumeOptions {
  /** Deliveries handled at once. Default 1. */
  concurrency?: number;
  /** Lease per delivery; extended every half lease while the handler runs, where the driver can. */
  leaseSeconds?: number;
  /**
   * Long-poll per receive, at most the manifest's `longPollMaxSeconds`. Default 1 s (or the
   * manifest's maximum, if lower), which bounds how long close() waits for an idle receive.
   */
  waitSeconds?: number;
  /** Stops the consumer (drains in-flight work) when aborted. */
  signal?: AbortSignal;
  /**
   * How failed deliveries come back: `maxAttempts` is the number of deliveries before a
   * retryable failure is given up (default 10, and never more than the provider's own
   * `deadLetter.redriveAfterReceives`, which would take the message first); the backoff grows
   * with the receive count. Defaults to `DEFAULT_REDELIVERY`.
   */
  retry?: Partial<RetryPolicy>;
  /**
   * Where dead deliveries go when the driver cannot move them to dead letters. Acked after it
   * resolves. Without it and without a driver DLQ, a dead delivery is released with the longest
   * backoff instead: queueport never drops a message silently.
   */
  onDeadLetter?: DeadLetterSink;
  /** Failures that are not the handler's own result: receive, ack, release, extension. */
  onError?: (error: unknown, delivery?: Delivery) => void;
}

export interface ConsumerStats {
  received: number;
  acked: number;
  released: number;
  deadLettered: number;
  errors: number;
}

/**
 * Pauses after failed receives: the Queue already retried the call itself, so this only keeps
 * a consumer whose provider is down from spinning, and never gives up (it has nothing to lose).
 */
const RECEIVE_ERROR_BACKOFF: BackoffPolicy = { baseMs: 200, maxMs: 30_000, jitter: 1 };

/** The shortest long poll a consumer takes, other than none: one millisecond. */
const MIN_WAIT_SECONDS = 0.001;

/** The loop behind `queue.consume`. Stops by draining: no new receives, in-flight work finishes. */
export class Consumer {
  readonly stats: ConsumerStats = { received: 0, acked: 0, released: 0, deadLettered: 0, errors: 0 };
  /** Resolves when the loop has stopped and every in-flight delivery is settled. */
  readonly done: Promise<void>;
  readonly #queue: Queue;
  readonly #handler: Handler;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * Resolved whenever a delivery finishes. Waiting on this instead of Promise.race(inFlight)
   * keeps a full consumer from piling a reaction onto every in-flight promise per freed slot.
   */
  #slotFreed = deferred();
  readonly #concurrency: number;
  readonly #leaseSeconds: number;
  readonly #waitSeconds: number;
  readonly #retry: RetryPolicy;
  /** One timer for every held lease; absent where the driver cannot extend leases. */
  readonly #leases: LeaseKeeper | undefined;
  readonly #options: ConsumeOptions;

  constructor(queue: Queue, handler: Handler, consumeOptions: ConsumeOptions, onStopped: () => void) {
    // Everything is checked here, before the loop starts: a bad option would otherwise fail
    // every receive of the loop, reported to onError again and again instead of once.
    if (typeof handler !== 'function') {
      throw new QueueError('INVALID_ARGUMENT', 'consume takes a handler function', {
        details: { field: 'handler' },
      });
    }
    const options = checkOptions('consume options', consumeOptions);
    this.#queue = queue;
    this.#handler = handler;
    this.#options = options;
    this.#concurrency = options.concurrency ?? 1;
    const caps = queue.capabilities;
    this.#leaseSeconds = checkLeaseSeconds(options.leaseSeconds ?? Math.min(30, caps.leaseSeconds.max), caps);
    this.#waitSeconds = checkWaitSeconds(options.waitSeconds ?? Math.min(1, caps.longPollMaxSeconds), caps);
    if (this.#waitSeconds > 0 && this.#waitSeconds < MIN_WAIT_SECONDS) {
      // Below a millisecond a long poll ends at once, and only a wait of 0 makes the loop pause.
      throw new QueueError(
        'INVALID_ARGUMENT',
        `waitSeconds must be 0 or at least ${MIN_WAIT_SECONDS}; got ${this.#waitSeconds}`,
        { details: { field: 'waitSeconds' } },
      );
    }
    this.#retry = redeliveryPolicy(options.retry, caps.deadLetter.redriveAfterReceives, queue.name);
    this.#leases = caps.leaseExtension
      ? new LeaseKeeper(queue.clock, this.#leaseSeconds, (error, delivery) =>
          this.#reportError(error, delivery),
        )
      : undefined;
    if (options.signal?.aborted) this.#stop.abort();
    options.signal?.addEventListener('abort', () => this.#stop.abort(), { once: true });
    this.done = this.#run().finally(onStopped);
  }

  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Stops receiving and waits for in-flight deliveries to settle. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.done;
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let consecutiveErrors = 0;
    while (!signal.aborted) {
      const free = this.#concurrency - this.#inFlight.size;
      if (free <= 0) {
        await this.#slotFreed.promise;
        continue;
      }
      // A backlog on a driver that answers from memory, with handlers that do no I/O, would
      // otherwise run entirely in microtasks: no timer (lease extensions included) and no I/O
      // would run until it is drained. One macrotask turn per receive lets them in.
      await nextTurn();
      if (signal.aborted) break;
      let batch: Delivery[];
      const startedAt = this.#queue.clock.now();
      try {
        batch = await this.#queue.receive({
          maxMessages: Math.min(free, this.#queue.capabilities.batch.receive),
          leaseSeconds: this.#leaseSeconds,
          waitSeconds: this.#waitSeconds,
          signal,
        });
        consecutiveErrors = 0;
      } catch (error) {
        if (signal.aborted) break;
        this.#reportError(error);
        consecutiveErrors++;
        await this.#pause(backoffDelay(consecutiveErrors, RECEIVE_ERROR_BACKOFF));
        continue;
      }
      // An empty answer sooner than the long poll (no wait asked, or a provider that does not
      // wait) would otherwise spin the loop and starve the event loop.
      if (batch.length === 0 && this.#queue.clock.now() - startedAt < this.#waitSeconds * 1000) {
        await this.#pause(50);
      } else if (batch.length === 0 && this.#waitSeconds === 0) await this.#pause(50);
      for (const delivery of batch) {
        this.stats.received++;
        const task: Promise<void> = this.#handle(delivery).finally(() => {
          this.#inFlight.delete(task);
          this.#slotFreed.resolve();
          this.#slotFreed = deferred();
        });
        this.#inFlight.add(task);
      }
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  async #handle(delivery: Delivery): Promise<void> {
    const lease = this.#leases?.hold(delivery);
    let failure: { error: unknown } | undefined;
    try {
      await this.#handler(delivery, lease?.context ?? new LeaseLostSignal());
    } catch (error) {
      failure = { error };
    } finally {
      // An extension under way finishes first, so it never races the settle below.
      await lease?.release();
    }
    if (delivery.settled) {
      if (failure) this.#reportError(failure.error, delivery);
      return;
    }
    try {
      if (!failure) {
        await delivery.ack();
        this.stats.acked++;
        return;
      }
      const caps = this.#queue.capabilities;
      const decision = decideOnFailure(failure.error, delivery.receiveCount, this.#retry, caps);
      if (decision.action === 'release') {
        await delivery.release({ delaySeconds: decision.delaySeconds });
        this.stats.released++;
      } else {
        await this.#deadLetter(delivery, decision.reason);
      }
    } catch (error) {
      this.#reportError(error, delivery);
    }
  }

  async #deadLetter(delivery: Delivery, reason: string): Promise<void> {
    const result = await giveUpDelivery(this.#queue, delivery, reason, {
      sink: this.#options.onDeadLetter,
      keepDelayMs: this.#retry.maxMs,
    });
    if (result !== 'kept') {
      this.stats.deadLettered++;
      return;
    }
    this.stats.released++;
    this.#reportError(new Error(`no dead-letter destination; released instead: ${reason}`), delivery);
  }

  async #pause(ms: number): Promise<void> {
    try {
      await this.#queue.clock.sleep(ms, this.#stop.signal);
    } catch {
      // Aborted: the loop condition sees it.
    }
  }

  #reportError(error: unknown, delivery?: Delivery): void {
    this.stats.errors++;
    this.#options.onError?.(error, delivery);
  }
}

/** The consumer's policy, refused when the provider's own redrive would take messages before it gives up. */
function redeliveryPolicy(
  partial: Partial<RetryPolicy> | undefined,
  redriveAfterReceives: number | null,
  queueName: string,
): RetryPolicy {
  const defaults =
    redriveAfterReceives === null
      ? DEFAULT_REDELIVERY
      : {
          ...DEFAULT_REDELIVERY,
          maxAttempts: Math.min(DEFAULT_REDELIVERY.maxAttempts, redriveAfterReceives),
        };
  const policy = resolveRetryPolicy(partial, defaults);
  if (redriveAfterReceives !== null && policy.maxAttempts > redriveAfterReceives) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `retry.maxAttempts ${policy.maxAttempts} exceeds ${queueName}'s own redrive after ${redriveAfterReceives} receives: the provider would dead-letter messages before the consumer gives up on them`,
      { details: { field: 'retry.maxAttempts', maxAttempts: policy.maxAttempts, redriveAfterReceives } },
    );
  }
  return policy;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
