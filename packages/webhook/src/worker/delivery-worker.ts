import { randomUUID } from 'node:crypto';
import {
  type AnyDelivery,
  type AnyQueue,
  type Clock,
  type CloseOptions,
  type ConsumeOptions,
  type Consumer,
  type ConsumerEvents,
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  type Envelope,
  type EventListener,
  type EventLogger,
  type EventSource,
  fitDelay,
  giveUpDelivery,
  isQueueError,
  nextRetry,
  QueueError,
  type RetryPolicy,
  TypedEmitter,
  type Unsubscribe,
} from '@queueport/core';
import {
  type ClaimResult,
  type DestinationStateStore,
  destinationStoreOf,
  type Ledger,
} from '@queueport/ledger';
import type { Destination, DestinationRegistry } from '../destinations';
import { resolveRetrySchedule } from '../retry';
import type { DeliveryOutcome, WebhookSender } from '../sender';
import { attemptOf } from './attempt-record';
import { type CrashInjector, type CrashPoint, SimulatedCrash } from './crash-points';
import {
  DEFAULT_DESTINATION_REFRESH_MS,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  DestinationPolicy,
  type Taken,
} from './destination-policy';
import {
  DELIVERY_WORKER_EVENT_NAMES,
  type DeliveryWorkerEvents,
  FORWARDED_CONSUMER_EVENTS,
  type WorkerReleaseCause,
} from './worker-events';

export type DeliveryResult =
  | 'delivered'
  | 'already-settled'
  | 'busy'
  | 'retry-scheduled'
  | 'failed'
  | 'conflict'
  | 'lease-lost'
  | 'crashed'
  /** Its destination is disabled: parked in the ledger (not sent, not failed), then acked. */
  | 'parked'
  /** Held back by its destination's rate limit: released until its turn, nothing claimed. */
  | 'rate-limited';

export interface DeliveryReport {
  eventId: string;
  result: DeliveryResult;
  attempt?: number;
  outcome?: DeliveryOutcome;
  crashedAt?: CrashPoint;
  /** The id of the destination it was sent to (never its URL), once routed. */
  destinationId?: string;
  /** The envelope's `occurred_at`, from which delivery within an objective is measured. */
  occurredAt: string;
}

export interface DeliveryWorkerOptions {
  /** Any queue, typed or not: the worker forwards bodies and never reads a payload's type. */
  queue: AnyQueue;
  ledger: Ledger;
  sender: WebhookSender;
  /** Where an event goes. No destination is a terminal failure, recorded in the ledger. */
  route: (envelope: Envelope) => Destination | undefined;
  /** Must outlast the sender's request timeout plus `leaseMarginSeconds`, or two workers send at once. */
  ledgerLeaseSeconds?: number;
  leaseMarginSeconds?: number;
  /** Retry policy over DEFAULT_RETRY_SCHEDULE; a destination's own `retry` wins field by field. */
  retry?: Partial<RetryPolicy>;
  registry?: DestinationRegistry;
  workerId?: string;
  clock?: Clock;
  /** A listener of the `report` event: every processed delivery's result. */
  onReport?: (report: DeliveryReport) => void;
  /** Where problem events nothing listens to are logged (once per kind); the queue's `logger` by default. */
  logger?: EventLogger;
  /** Test hook: dies at the chosen points, abandoning the delivery (leases are left to lapse). */
  crash?: CrashInjector;
  /**
   * Where destination state is kept and events for disabled destinations are parked: by default
   * the ledger's own (`ledger.destinations`; the SQLite and PostgreSQL ledgers have one). Without
   * one (`false`, or a ledger of your own that has none) nothing is parked or disabled by
   * `disableAfter`: a registry-disabled destination's events fail, as a 410's does.
   */
  destinations?: DestinationStateStore | false;
  /** How often the worker re-reads which destinations are disabled. Default 1000. */
  destinationRefreshMs?: number;
  /**
   * The longest a send waits in the worker for its destination's rate limit; a later turn is
   * not waited for: the message is released until then. Default 1000.
   */
  rateLimitWaitMs?: number;
}

const DEFAULT_MARGIN_SECONDS = 5;

type Settlement =
  | { result: 'delivered' }
  | { result: 'retry-scheduled'; delayMs: number }
  | { result: 'failed'; reason: string };

/**
 * Joins queue, ledger and sender: claim in the ledger, send, commit the outcome, then ack. Each
 * step is its own short transaction; nothing is held open across the HTTP call.
 */
export class DeliveryWorker implements EventSource<DeliveryWorkerEvents> {
  readonly workerId: string;
  readonly ledgerLeaseSeconds: number;
  readonly #options: DeliveryWorkerOptions;
  readonly #clock: Clock;
  readonly #retry: RetryPolicy;
  readonly #events: TypedEmitter<DeliveryWorkerEvents>;
  /** The consumers `start()` made that have not stopped yet. */
  readonly #consumers = new Set<Consumer>();
  readonly #policy: DestinationPolicy;
  #abandoned = 0;
  #closing: Promise<void> | undefined;

  constructor(options: DeliveryWorkerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? options.queue.clock;
    this.#retry = resolveRetrySchedule(options.retry);
    this.workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
    this.#events = new TypedEmitter<DeliveryWorkerEvents>({
      source: `delivery worker ${this.workerId}`,
      names: DELIVERY_WORKER_EVENT_NAMES,
      problems: ['lease-lost'],
      logger: options.logger ?? options.queue.logger,
    });
    const { onReport } = options;
    if (onReport) this.#events.on('report', (report) => onReport(report));
    this.#policy = new DestinationPolicy({
      store:
        options.destinations === false
          ? undefined
          : (options.destinations ?? destinationStoreOf(options.ledger)),
      ledger: options.ledger,
      registry: options.registry,
      clock: this.#clock,
      refreshMs:
        nonNegative(options.destinationRefreshMs, 'destinationRefreshMs') ?? DEFAULT_DESTINATION_REFRESH_MS,
      rateLimitWaitMs: nonNegative(options.rateLimitWaitMs, 'rateLimitWaitMs') ?? DEFAULT_RATE_LIMIT_WAIT_MS,
      onDisabled: (event) => this.#events.emit('destination.disabled', event),
    });
    const margin = options.leaseMarginSeconds ?? DEFAULT_MARGIN_SECONDS;
    const floor = options.sender.requestTimeoutMs / 1000 + margin;
    this.ledgerLeaseSeconds = options.ledgerLeaseSeconds ?? Math.ceil(floor + margin);
    if (!(this.ledgerLeaseSeconds >= floor)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `ledger lease of ${this.ledgerLeaseSeconds} s must outlast the request timeout (${options.sender.requestTimeoutMs / 1000} s) plus a ${margin} s margin, or a second worker could send while the first is still waiting`,
        {
          details: {
            ledgerLeaseSeconds: this.ledgerLeaseSeconds,
            requestTimeoutMs: options.sender.requestTimeoutMs,
            margin,
          },
        },
      );
    }
  }

  on<K extends keyof DeliveryWorkerEvents & string>(
    name: K,
    listener: EventListener<DeliveryWorkerEvents[K]>,
  ): Unsubscribe {
    return this.#events.on(name, listener);
  }

  once<K extends keyof DeliveryWorkerEvents & string>(
    name: K,
    listener: EventListener<DeliveryWorkerEvents[K]>,
  ): Unsubscribe {
    return this.#events.once(name, listener);
  }

  off<K extends keyof DeliveryWorkerEvents & string>(
    name: K,
    listener: EventListener<DeliveryWorkerEvents[K]>,
  ): void {
    this.#events.off(name, listener);
  }

  listenerCount(name: keyof DeliveryWorkerEvents & string): number {
    return this.#events.listenerCount(name);
  }

  /**
   * Runs the worker over the queue until the consumer is closed (or the worker is). The
   * consumer's events are emitted by the worker too; `handlerTimeoutMs` bounds one delivery.
   */
  start(options: ConsumeOptions = {}): Consumer {
    const { queue } = this.#options;
    if (this.#closing) throw new QueueError('CLOSED', `delivery worker ${this.workerId} is closed`);
    const leaseSeconds =
      options.leaseSeconds ?? Math.min(queue.capabilities.leaseSeconds.max, this.ledgerLeaseSeconds);
    const redrive = queue.capabilities.deadLetter.redriveAfterReceives;
    if (redrive !== null && redrive < this.#retry.maxAttempts) {
      // Every attempt is a receive: the provider would dead-letter events the ledger still retries.
      const { maxAttempts } = this.#retry;
      throw new QueueError(
        'INVALID_ARGUMENT',
        `${queue.name} dead-letters after ${redrive} receives, fewer than the ${maxAttempts} attempts of the retry policy: ` +
          `create the queue with redriveAfterReceives of at least ${maxAttempts} (the admins' default, DEFAULT_REDRIVE_AFTER_RECEIVES, is ${DEFAULT_REDRIVE_AFTER_RECEIVES}), ` +
          `or give the worker retry: { maxAttempts: ${redrive} } or fewer`,
        { details: { redriveAfterReceives: redrive, maxAttempts } },
      );
    }
    if (!queue.capabilities.leaseExtension && leaseSeconds < this.ledgerLeaseSeconds) {
      // Without extension, a queue lease shorter than a send would hand the message to a second
      // worker mid-request; the ledger would answer "busy", but only after a wasted receive.
      throw new QueueError(
        'INVALID_ARGUMENT',
        `queue lease ${leaseSeconds} s is shorter than the ledger lease and ${queue.name} cannot extend leases`,
      );
    }
    const consumer = queue.consume(
      async (delivery, { signal }) => {
        await this.process(delivery, signal);
      },
      { ...options, leaseSeconds },
    );
    this.#forward(consumer);
    return consumer;
  }

  /**
   * Closes every consumer `start()` made, each within `timeoutMs` as `consumer.close` does
   * (then their unsettled deliveries are released at once), and resolves once all have stopped.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.#closing) {
      // A later close with a bound applies it to a close already under way.
      if (options?.timeoutMs !== undefined) {
        await Promise.all([...this.#consumers].map((consumer) => consumer.close(options)));
      }
      return this.#closing;
    }
    this.#events.emit('closing', { timeoutMs: options?.timeoutMs });
    this.#closing = Promise.all([...this.#consumers].map((consumer) => consumer.close(options))).then(() => {
      this.#events.emit('closed', { abandoned: this.#abandoned });
    });
    return this.#closing;
  }

  /** Re-emits a consumer's events as the worker's own until it stops. */
  #forward(consumer: Consumer): void {
    this.#consumers.add(consumer);
    // The first receive answered is either the first delivery or the first empty answer, and
    // it is announced before either is forwarded.
    let receiving = false;
    const announce = () => {
      if (receiving) return;
      receiving = true;
      this.#events.emit('receiving', { consumer });
    };
    const announcers = [consumer.on('received', announce), consumer.once('drained', announce)];
    const stops = FORWARDED_CONSUMER_EVENTS.map((name) =>
      consumer.on(name, (payload) => {
        // Someone else listening on the consumer (its onError, say) has heard a problem already.
        const heard = consumer.listenerCount(name) > 1;
        this.#events.emit(name, payload as never, heard);
      }),
    );
    const closed: EventListener<ConsumerEvents['closed']> = ({ abandoned }) => {
      this.#abandoned += abandoned;
    };
    stops.push(consumer.once('closed', closed), ...announcers);
    const stopped = () => {
      for (const stop of stops) stop();
      this.#consumers.delete(consumer);
    };
    consumer.done.then(stopped, stopped);
  }

  /**
   * Handles one delivery end to end and settles it, except after a (simulated) crash. `signal`
   * (the consumer's: lease lost, handler timeout, close's bound) aborts the HTTP request; the
   * sender classifies that as a retry, so the ledger records the attempt instead of leaving it
   * to lapse.
   */
  async process(delivery: AnyDelivery, signal?: AbortSignal): Promise<DeliveryResult> {
    const eventId = delivery.envelope.event_id;
    try {
      const report = await this.#admitted(delivery, signal);
      this.#events.emit('report', { ...report, occurredAt: delivery.envelope.occurred_at });
      return report.result;
    } catch (error) {
      if (error instanceof SimulatedCrash) {
        const { occurred_at: occurredAt } = delivery.envelope;
        this.#events.emit('report', { eventId, result: 'crashed', crashedAt: error.point, occurredAt });
        return 'crashed';
      }
      throw error;
    }
  }

  /**
   * Routes first, so the destination's concurrency and rate limits hold a send back before the
   * claim: held back, nothing is claimed and no attempt counted.
   */
  async #admitted(
    delivery: AnyDelivery,
    signal: AbortSignal | undefined,
  ): Promise<Omit<DeliveryReport, 'occurredAt'>> {
    const eventId = delivery.envelope.event_id;
    const destination = this.#options.route(delivery.envelope);
    const admission = await this.#policy.admit(destination, eventId, signal);
    if (!admission.admitted) {
      await this.#settleQuietly(() => this.#release(delivery, admission.delayMs / 1000, 'rate-limited'));
      return { eventId, result: 'rate-limited', ...routedTo(destination) };
    }
    try {
      return await this.#process(delivery, signal, destination);
    } finally {
      admission.done();
    }
  }

  async #process(
    delivery: AnyDelivery,
    signal: AbortSignal | undefined,
    destination: Destination | undefined,
  ): Promise<Omit<DeliveryReport, 'occurredAt'>> {
    const { ledger, sender } = this.#options;
    const { envelope } = delivery;
    const eventId = envelope.event_id;
    this.#checkpoint('after-receive', eventId);

    const owner = `${this.workerId}:${randomUUID()}`;
    let claim: ClaimResult;
    try {
      claim = await ledger.claim({
        eventId,
        payloadSha256: envelope.payload_sha256,
        owner,
        leaseSeconds: this.ledgerLeaseSeconds,
      });
    } catch (error) {
      if (!isQueueError(error, 'IDEMPOTENCY_CONFLICT')) throw error;
      // The same event id with a different payload is never a retry: park it for a person.
      await this.#giveUp(delivery, error.message);
      return { eventId, result: 'conflict' };
    }
    if (claim.status === 'delivered' || claim.status === 'failed') {
      this.#checkpoint('before-ack', eventId);
      await this.#ack(delivery, 'already-settled');
      return { eventId, result: 'already-settled' };
    }
    if (claim.status === 'busy') {
      await this.#release(delivery, (claim.leaseUntil - this.#clock.now()) / 1000, 'busy');
      return { eventId, result: 'busy' };
    }
    this.#checkpoint('after-claim', eventId);

    const claimed = destination && { delivery, destination, owner };
    const parked = claimed && (await this.#policy.parkIfDisabled(claimed));
    if (parked) return this.#taken(parked, delivery, claim.attempt, destination);
    const outcome: DeliveryOutcome = !destination
      ? { kind: 'terminal', reason: 'no destination for this event', attemptMs: 0 }
      : this.#policy.disabledWithoutStore(destination)
        ? { kind: 'terminal', reason: `destination ${destination.id} is disabled`, attemptMs: 0 }
        : await sender.send({ destination, eventId, body: delivery.body }, signal);
    this.#checkpoint('after-send', eventId);
    const parkedAfter = claimed && (await this.#policy.parkAfterSend(claimed, outcome));
    if (parkedAfter) return this.#taken(parkedAfter, delivery, claim.attempt, destination, outcome);

    let settlement: Settlement;
    try {
      settlement = await this.#commit(outcome, { eventId, owner, attempt: claim.attempt, destination });
    } catch (error) {
      if (!isQueueError(error, 'LEASE_LOST')) throw error;
      // Our lease lapsed and another worker took the event: it owns the outcome now. Give the
      // message back so whoever is left settles it by reading the ledger.
      this.#events.emit('lease-lost', { delivery, error, during: 'ledger-commit' });
      await this.#settleQuietly(() => this.#release(delivery, 0, 'ledger-lease-lost'));
      return { eventId, result: 'lease-lost', attempt: claim.attempt, outcome, ...routedTo(destination) };
    }
    this.#checkpoint('after-commit', eventId);

    this.#checkpoint('before-ack', eventId);
    if (settlement.result === 'delivered') await this.#ack(delivery, 'delivered');
    else if (settlement.result === 'retry-scheduled') {
      const { delayMs } = settlement;
      this.#events.emit('retry', { delivery, eventId, attempt: claim.attempt, delayMs, outcome });
      await this.#release(delivery, delayMs / 1000, 'retry-scheduled');
    } else await this.#giveUp(delivery, settlement.reason);
    return { eventId, result: settlement.result, attempt: claim.attempt, outcome, ...routedTo(destination) };
  }

  /** Settles a delivery the destination policy took over (parked, or failed as unparkable). */
  async #taken(
    taken: Taken,
    delivery: AnyDelivery,
    attempt: number,
    destination: Destination | undefined,
    outcome?: DeliveryOutcome,
  ): Promise<Omit<DeliveryReport, 'occurredAt'>> {
    const eventId = delivery.envelope.event_id;
    const base = { eventId, attempt, ...(outcome ? { outcome } : {}), ...routedTo(destination) };
    if (taken.kind === 'lease-lost') {
      this.#events.emit('lease-lost', { delivery, error: taken.error, during: 'ledger-commit' });
      await this.#settleQuietly(() => this.#release(delivery, 0, 'ledger-lease-lost'));
      return { ...base, result: 'lease-lost' };
    }
    this.#checkpoint('before-ack', eventId);
    if (taken.kind === 'failed') {
      await this.#giveUp(delivery, taken.reason);
      return { ...base, result: 'failed' };
    }
    await this.#ack(delivery, 'parked');
    return { ...base, result: 'parked' };
  }

  /** Records the send's outcome in the ledger and says how the message is to be settled. */
  async #commit(
    outcome: DeliveryOutcome,
    attempt: { eventId: string; owner: string; attempt: number; destination: Destination | undefined },
  ): Promise<Settlement> {
    const { ledger, registry } = this.#options;
    const { eventId, owner, destination } = attempt;
    // Recorded by the settle itself: in its commit, and not at all if the lease was lost.
    const logged = { attempt: attemptOf(outcome, destination, this.#clock.now()) };
    if (outcome.kind === 'delivered') {
      await ledger.complete({ eventId, owner, outcome: `http ${outcome.status}`, ...logged });
      return { result: 'delivered' };
    }
    let reason = outcome.reason;
    // A request that left without a usable answer may have been acted on: the row says so for
    // good, whatever a later attempt brings, and reconciliation lists it.
    const ambiguous = outcome.kind === 'retry' && outcome.ambiguous === true ? { ambiguous: true } : {};
    if (outcome.kind === 'retry') {
      const policy = destination?.retry ? resolveRetrySchedule(destination.retry, this.#retry) : this.#retry;
      const next = nextRetry(policy, attempt.attempt, outcome.retryAfterMs);
      if (!next.giveUp) {
        const delayMs = Math.ceil(next.delayMs);
        const retryAt = this.#clock.now() + delayMs;
        await ledger.release({ eventId, owner, outcome: reason, retryAt, ...ambiguous, ...logged });
        return { result: 'retry-scheduled', delayMs };
      }
      reason = `gave up after ${attempt.attempt} attempts: ${reason}`;
    }
    if (outcome.kind === 'disable' && destination) registry?.disable(destination.id, outcome.reason);
    await ledger.fail({ eventId, owner, outcome: reason, ...ambiguous, ...logged });
    return { result: 'failed', reason };
  }

  /**
   * Terminal, by core's one give-up rule: the message goes to the dead letters where the provider
   * can move it, else it is acked, since the ledger (the worker's sink) already holds the failure.
   */
  async #giveUp(delivery: AnyDelivery, reason: string): Promise<void> {
    const result = await giveUpDelivery(this.#options.queue, delivery, reason, {
      sink: ledgerHoldsIt,
      keepDelayMs: this.#retry.maxMs,
    });
    // The ledger is always there as a sink: nothing is ever 'kept'.
    this.#events.emit('dead-lettered', {
      delivery,
      reason,
      to: result === 'dead-lettered' ? 'dead-letters' : 'sink',
    });
  }

  async #ack(delivery: AnyDelivery, result: 'delivered' | 'already-settled' | 'parked'): Promise<void> {
    await delivery.ack();
    this.#events.emit('acked', { delivery, result });
  }

  async #release(delivery: AnyDelivery, seconds: number, cause: WorkerReleaseCause): Promise<void> {
    const delaySeconds = fitDelay(seconds, this.#options.queue.capabilities);
    await delivery.release({ delaySeconds });
    this.#events.emit('released', { delivery, delaySeconds, cause });
  }

  #checkpoint(point: CrashPoint, eventId: string): void {
    if (this.#options.crash?.(point, eventId)) throw new SimulatedCrash(point, eventId);
  }

  async #settleQuietly(settle: () => Promise<void>): Promise<void> {
    try {
      await settle();
    } catch (error) {
      if (!isQueueError(error, 'LEASE_LOST')) throw error;
    }
  }
}

function nonNegative(value: number | undefined, name: string): number | undefined {
  if (value === undefined || (Number.isFinite(value) && value >= 0)) return value;
  throw new QueueError('INVALID_ARGUMENT', `${name} must be a number of milliseconds ≥ 0`, {
    details: { field: name },
  });
}

function routedTo(destination: Destination | undefined): { destinationId?: string } {
  return destination ? { destinationId: destination.id } : {};
}

/** The ledger row already records the failure and its reason: nothing more to keep. */
const ledgerHoldsIt = async (): Promise<void> => {};
