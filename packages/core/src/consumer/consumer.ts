import { setImmediate as nextTurn } from 'node:timers/promises';
import { isQueueError, QueueError } from '../errors';
import {
  type EventListener,
  type EventLogger,
  type EventSource,
  TypedEmitter,
  type Unsubscribe,
} from '../events';
import { checkOptions } from '../options';
import type { AnyEvents, EventMap } from '../payloads';
import { CAP_OPTION } from '../queue/capped-option';
import type { Delivery } from '../queue/delivery';
import { checkLeaseSeconds, checkWaitSeconds } from '../queue/message-checks';
import type { Queue } from '../queue/queue';
import { ReceivedDelivery } from '../queue/received-delivery';
import { type BackoffPolicy, backoffDelay, type RetryPolicy, resolveRetryPolicy } from '../retry';
import { QUEUE_TELEMETRY, type QueueTelemetry } from '../telemetry';
import {
  CONSUMER_EVENT_NAMES,
  type ConsumerErrorEvent,
  type ConsumerEvents,
  type ConsumerStats,
} from './consumer-events';
import { DEFAULT_REDELIVERY, decideOnFailure } from './failure-policy';
import { type DeadLetterSink, giveUpDelivery, keepDelaySeconds } from './give-up';
import { LeaseKeeper, LeaseLostSignal } from './lease-keeper';

export type { ConsumerStats } from './consumer-events';

export interface HandlerContext {
  /**
   * Aborted when the delivery's lease is lost, when the handler runs past `handlerTimeoutMs`, or
   * when `close({ timeoutMs })` runs out first (`signal.reason` says which). The message comes
   * back and the work may be done twice, so stop side effects if you can.
   */
  signal: AbortSignal;
}

export type Handler<E extends EventMap = AnyEvents> = (
  delivery: Delivery<E>,
  context: HandlerContext,
) => Promise<void>;

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
  /**
   * How long a handler may run, in milliseconds of the Queue's clock; no limit by default. Past
   * it the handler's signal is aborted, its slot is freed at once (the consumer stops waiting for
   * it), and its delivery is a failed one: released with the failure policy's backoff, or given
   * up once the policy's attempts are spent, so a message whose handler always hangs ends in the
   * dead letters instead of coming back forever.
   */
  handlerTimeoutMs?: number;
  /** Where problem events that nothing listens to are logged (once per kind); the Queue's `logger` by default. */
  logger?: EventLogger;
  /**
   * Failures that are not the handler's own result (receive, ack, release, extension): a
   * listener of the `error` and `lease-lost` events.
   */
  onError?: (error: unknown, delivery?: Delivery) => void;
}

/**
 * What a consumer runs with, once its options are checked and capped to the provider: a
 * `waitSeconds` past `longPollMaxSeconds` is the maximum here (and a `capped` event on the
 * Queue said so).
 */
export interface ConsumerSettings {
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly waitSeconds: number;
  readonly handlerTimeoutMs: number | undefined;
}

export interface CloseOptions {
  /**
   * How long in-flight handlers may still run, in milliseconds of the Queue's clock. Then their
   * signals are aborted, their unsettled deliveries are released with no delay (so they come back
   * at once), and close resolves without waiting for those handlers. Without it, close waits for
   * every handler to finish (as long as `handlerTimeoutMs` allows, if set).
   */
  timeoutMs?: number;
}

/**
 * Pauses after failed receives: the Queue already retried the call itself, so this only keeps
 * a consumer whose provider is down from spinning, and never gives up (it has nothing to lose).
 */
const RECEIVE_ERROR_BACKOFF: BackoffPolicy = { baseMs: 200, maxMs: 30_000, jitter: 1 };

/** The shortest long poll a consumer takes, other than none: one millisecond. */
const MIN_WAIT_SECONDS = 0.001;

/** Why the consumer stopped waiting for a handler that is still running. */
interface Cut {
  cause: 'handler-timeout' | 'closing';
  error: QueueError;
}

/** What the consumer's wait for a handler ended with: its result, or a cut. */
type HandlerOutcome = { error: unknown } | Cut | undefined;

/** A delivery whose handler is running. */
interface Running {
  readonly delivery: Delivery;
  /**
   * Ends the consumer's wait for the handler: called by the handler's end and by a cut, and
   * the first call wins. One promise per delivery, where a race of two cost a second promise
   * and a reaction on each.
   */
  finish: (outcome: HandlerOutcome) => void;
}

/** Why a handler's timeout timer stops when the handler settled first; nobody reads it. */
const HANDLER_SETTLED = 'handler settled';

/**
 * The loop behind `queue.consume`. Stops by draining: no new receives, in-flight work finishes
 * (within close's `timeoutMs`, if given). Emits its events through `on` / `once` / `off`.
 */
export class Consumer implements EventSource<ConsumerEvents> {
  readonly stats: ConsumerStats = {
    received: 0,
    acked: 0,
    released: 0,
    deadLettered: 0,
    errors: 0,
    timedOut: 0,
  };
  /** The options in effect, capped to the provider where an option is only a provider maximum. */
  readonly settings: ConsumerSettings;
  /** Resolves when the loop has stopped and every in-flight delivery is settled (or released at close's bound). */
  readonly done: Promise<void>;
  readonly #queue: Queue;
  readonly #handler: Handler;
  readonly #events: TypedEmitter<ConsumerEvents>;
  readonly #stop = new AbortController();
  /** Aborted once the loop has ended: drops a close bound still waiting on the clock. */
  readonly #ended = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #running = new Set<Running>();
  /**
   * Resolved whenever a delivery finishes. Waiting on this instead of Promise.race(inFlight)
   * keeps a full consumer from piling a reaction onto every in-flight promise per freed slot.
   */
  #slotFreed = deferred<void>();
  readonly #concurrency: number;
  readonly #leaseSeconds: number;
  readonly #waitSeconds: number;
  readonly #retry: RetryPolicy;
  readonly #handlerTimeoutMs: number | undefined;
  /** One timer for every held lease; absent where the driver cannot extend leases. */
  readonly #leases: LeaseKeeper | undefined;
  readonly #options: ConsumeOptions;
  readonly #telemetry: QueueTelemetry | undefined;
  /** close's bound ran out: whatever is in flight, or arrives, is released at once. */
  #forced = false;
  #abandoned = 0;
  /** `drained` is due at the next empty receive: armed at start and by every delivery. */
  #drainArmed = true;

  constructor(queue: Queue, handler: Handler, consumeOptions: ConsumeOptions, onStopped: () => void) {
    // Everything is checked here, before the loop starts: a bad option would otherwise fail
    // every receive of the loop, reported again and again instead of once.
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
    this.#waitSeconds = queue[CAP_OPTION](
      'waitSeconds',
      checkWaitSeconds(options.waitSeconds ?? Math.min(1, caps.longPollMaxSeconds)),
      caps.longPollMaxSeconds,
      'consume',
    );
    if (this.#waitSeconds > 0 && this.#waitSeconds < MIN_WAIT_SECONDS) {
      // Below a millisecond a long poll ends at once, and only a wait of 0 makes the loop pause.
      throw new QueueError(
        'INVALID_ARGUMENT',
        `waitSeconds must be 0 or at least ${MIN_WAIT_SECONDS}; got ${this.#waitSeconds}`,
        { details: { field: 'waitSeconds' } },
      );
    }
    this.#retry = redeliveryPolicy(options.retry, caps.deadLetter.redriveAfterReceives, queue.name);
    this.#handlerTimeoutMs = options.handlerTimeoutMs;
    this.settings = Object.freeze({
      concurrency: this.#concurrency,
      leaseSeconds: this.#leaseSeconds,
      waitSeconds: this.#waitSeconds,
      handlerTimeoutMs: this.#handlerTimeoutMs,
    });
    this.#events = new TypedEmitter<ConsumerEvents>({
      source: `consumer over ${queue.name}`,
      names: CONSUMER_EVENT_NAMES,
      problems: ['lease-lost'],
      logger: options.logger ?? queue.logger,
    });
    const onError = options.onError;
    if (onError) {
      this.#events.on('error', (event) =>
        onError(event.error, 'delivery' in event ? event.delivery : undefined),
      );
      this.#events.on('lease-lost', (event) => onError(event.error, event.delivery));
    }
    this.#leases = caps.leaseExtension
      ? new LeaseKeeper(queue.clock, this.#leaseSeconds, (error, delivery) =>
          this.#leaseLost(delivery, error, 'extension'),
        )
      : undefined;
    this.#telemetry = queue[QUEUE_TELEMETRY];
    this.#telemetry?.consumer(this);
    if (options.signal?.aborted) this.#stop.abort();
    options.signal?.addEventListener('abort', () => this.#beginStop(undefined), { once: true });
    this.done = this.#run().finally(onStopped);
  }

  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  on<K extends keyof ConsumerEvents & string>(
    name: K,
    listener: EventListener<ConsumerEvents[K]>,
  ): Unsubscribe {
    return this.#events.on(name, listener);
  }

  once<K extends keyof ConsumerEvents & string>(
    name: K,
    listener: EventListener<ConsumerEvents[K]>,
  ): Unsubscribe {
    return this.#events.once(name, listener);
  }

  off<K extends keyof ConsumerEvents & string>(name: K, listener: EventListener<ConsumerEvents[K]>): void {
    this.#events.off(name, listener);
  }

  listenerCount(name: keyof ConsumerEvents & string): number {
    return this.#events.listenerCount(name);
  }

  /**
   * Stops receiving and waits for in-flight deliveries to settle: all of them, or for at most
   * `timeoutMs`, after which the rest are released at once (see CloseOptions). Can be called
   * again, for instance with a bound after a close without one.
   */
  async close(closeOptions: CloseOptions = {}): Promise<void> {
    const { timeoutMs } = checkOptions('close options', closeOptions);
    this.#beginStop(timeoutMs);
    if (timeoutMs !== undefined && !this.#ended.signal.aborted) {
      this.#queue.clock.sleep(timeoutMs, this.#ended.signal).then(
        () => this.#force(),
        () => {},
      );
    }
    await this.done;
  }

  #beginStop(timeoutMs: number | undefined): void {
    if (this.#stop.signal.aborted) return;
    this.#stop.abort();
    this.#events.emit('closing', { timeoutMs, inFlight: this.#running.size });
  }

  /** close's bound ran out: stop waiting for every handler still running. */
  #force(): void {
    if (this.#forced) return;
    this.#forced = true;
    for (const running of this.#running) running.finish(closingCut());
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
        this.#problem({ kind: 'receive', error });
        consecutiveErrors++;
        await this.#pause(backoffDelay(consecutiveErrors, RECEIVE_ERROR_BACKOFF));
        continue;
      }
      if (batch.length > 0) this.#drainArmed = true;
      else if (this.#drainArmed && this.#inFlight.size === 0) {
        this.#drainArmed = false;
        this.#events.emit('drained', { stats: { ...this.stats } });
      }
      // An empty answer sooner than the long poll (no wait asked, or a provider that does not
      // wait) would otherwise spin the loop and starve the event loop.
      const answeredEarly =
        this.#waitSeconds === 0 || this.#queue.clock.now() - startedAt < this.#waitSeconds * 1000;
      if (batch.length === 0 && answeredEarly) await this.#pause(50);
      for (const delivery of batch) {
        this.stats.received++;
        if (this.#events.has('received')) this.#events.emit('received', { delivery });
        const task: Promise<void> = this.#handle(delivery).finally(() => {
          this.#inFlight.delete(task);
          this.#slotFreed.resolve();
          this.#slotFreed = deferred();
        });
        this.#inFlight.add(task);
      }
    }
    await Promise.allSettled([...this.#inFlight]);
    this.#ended.abort();
    this.#events.emit('closed', { stats: { ...this.stats }, abandoned: this.#abandoned });
  }

  async #handle(delivery: Delivery): Promise<void> {
    if (this.#forced) {
      // Arrived after close's bound ran out: not handed to the handler at all.
      await this.#settle(delivery, () => this.#releaseAtOnce(delivery));
      return;
    }
    const lease = this.#leases?.hold(delivery);
    const context = lease?.context ?? new LeaseLostSignal();
    let timer: AbortController | undefined;
    const running: Running = { delivery, finish: () => {} };
    const outcome = await new Promise<HandlerOutcome>((resolve) => {
      running.finish = resolve;
      this.#running.add(running);
      if (this.#handlerTimeoutMs !== undefined) timer = this.#timeout(running);
      void this.#call(delivery, context).then(resolve);
    });
    // A reason given: abort() without one builds a DOMException for every delivery.
    timer?.abort(HANDLER_SETTLED);
    this.#running.delete(running);
    if (outcome && 'cause' in outcome) context.lose(outcome.error);
    // An extension under way finishes first, so it never races the settle below.
    await lease?.release();
    if (outcome && 'cause' in outcome) {
      if (outcome.cause === 'closing') this.#abandoned++;
      else {
        this.stats.timedOut++;
        this.#events.emit('handler-timeout', { delivery, timeoutMs: this.#handlerTimeoutMs! });
      }
      if (delivery.settled) return this.#countSettledByHandler(delivery);
      if (outcome.cause === 'closing') await this.#settle(delivery, () => this.#releaseAtOnce(delivery));
      else await this.#settle(delivery, () => this.#fail(delivery, outcome.error, 'handler-timeout'));
      return;
    }
    if (delivery.settled) {
      this.#countSettledByHandler(delivery);
      if (outcome) this.#problem({ kind: 'handler-after-settle', error: outcome.error, delivery });
      return;
    }
    await this.#settle(delivery, async () => {
      if (outcome) return this.#fail(delivery, outcome.error, 'handler-failed');
      await delivery.ack();
      this.stats.acked++;
      if (this.#events.has('acked')) this.#events.emit('acked', { delivery });
    });
  }

  /**
   * A handler that settles its delivery itself (the webhook worker does) is counted too: the
   * stats say what happened to the messages, whoever settled them. Its events are the handler's.
   */
  #countSettledByHandler(delivery: Delivery): void {
    const how = delivery instanceof ReceivedDelivery ? delivery.settledAs : undefined;
    if (how === 'acked') this.stats.acked++;
    else if (how === 'released') this.stats.released++;
    else if (how === 'dead-lettered') this.stats.deadLettered++;
  }

  /** Runs the handler; resolves with its failure, if any, and never rejects. */
  async #call(delivery: Delivery, context: LeaseLostSignal): Promise<{ error: unknown } | undefined> {
    const scope = this.#telemetry?.process(delivery, (delivery as ReceivedDelivery).traceContext);
    try {
      await (scope ? scope.run(() => this.#handler(delivery, context)) : this.#handler(delivery, context));
      scope?.end();
      return undefined;
    } catch (error) {
      scope?.end({ error });
      return { error };
    }
  }

  /** Cuts the handler short once `handlerTimeoutMs` has passed; abort the result to disarm. */
  #timeout(running: Running): AbortController {
    const timer = new AbortController();
    const timeoutMs = this.#handlerTimeoutMs!;
    this.#queue.clock.sleep(timeoutMs, timer.signal).then(
      () =>
        running.finish({
          cause: 'handler-timeout',
          error: new QueueError('UNAVAILABLE', `the handler did not settle within ${timeoutMs} ms`, {
            details: { handlerTimeoutMs: timeoutMs },
          }),
        }),
      () => {},
    );
    return timer;
  }

  /** The failure policy's answer to a failed (or timed-out) handler, carried out. */
  async #fail(
    delivery: Delivery,
    error: unknown,
    cause: 'handler-failed' | 'handler-timeout',
  ): Promise<void> {
    const decision = decideOnFailure(error, delivery.receiveCount, this.#retry, this.#queue.capabilities);
    this.#events.emit('handler-failed', { delivery, error, decision });
    if (decision.action === 'give-up') return this.#deadLetter(delivery, decision.reason);
    await delivery.release({ delaySeconds: decision.delaySeconds });
    this.stats.released++;
    this.#events.emit('released', { delivery, delaySeconds: decision.delaySeconds, cause, error });
  }

  async #releaseAtOnce(delivery: Delivery): Promise<void> {
    await delivery.release({ delaySeconds: 0 });
    this.stats.released++;
    this.#events.emit('released', { delivery, delaySeconds: 0, cause: 'closing' });
  }

  async #deadLetter(delivery: Delivery, reason: string): Promise<void> {
    const result = await giveUpDelivery(this.#queue, delivery, reason, {
      sink: this.#options.onDeadLetter,
      keepDelayMs: this.#retry.maxMs,
    });
    if (result !== 'kept') {
      this.stats.deadLettered++;
      this.#events.emit('dead-lettered', {
        delivery,
        reason,
        to: result === 'dead-lettered' ? 'dead-letters' : 'sink',
      });
      return;
    }
    this.stats.released++;
    const delaySeconds = keepDelaySeconds(this.#queue.capabilities, this.#retry.maxMs);
    this.#events.emit('released', { delivery, delaySeconds, cause: 'kept' });
    this.#problem({
      kind: 'no-dead-letter',
      error: new Error(`no dead-letter destination; released instead: ${reason}`),
      delivery,
    });
  }

  /** Runs a settle; its failure is reported, never thrown: the message comes back when its lease ends. */
  async #settle(delivery: Delivery, settle: () => Promise<void>): Promise<void> {
    try {
      await settle();
    } catch (error) {
      if (isQueueError(error, 'LEASE_LOST')) this.#leaseLost(delivery, error, 'settle');
      else this.#problem({ kind: 'settle', error, delivery });
    }
  }

  async #pause(ms: number): Promise<void> {
    try {
      await this.#queue.clock.sleep(ms, this.#stop.signal);
    } catch {
      // Aborted: the loop condition sees it.
    }
  }

  #problem(event: ConsumerErrorEvent): void {
    this.stats.errors++;
    this.#events.emit('error', event);
  }

  #leaseLost(delivery: Delivery, error: unknown, during: 'extension' | 'settle'): void {
    this.stats.errors++;
    this.#events.emit('lease-lost', { delivery, error, during });
  }
}

function closingCut(): Cut {
  return {
    cause: 'closing',
    error: new QueueError(
      'CLOSED',
      'the consumer closed before this handler settled; its delivery is released',
    ),
  };
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

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
