import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  assertCapabilities,
  type Capabilities,
  effectiveCapabilities,
  type PortableLimits,
} from '../capabilities';
import { type Clock, systemClock } from '../clock';
import { type CloseOptions, type ConsumeOptions, Consumer, type Handler } from '../consumer/consumer';
import {
  BRIDGE_RESERVED_BYTES,
  DelayBridge,
  type HopCalls,
  type HopReplacement,
  replaceHops,
} from '../delay-bridge';
import type { Driver, DriverMessage, OutgoingMessage, PublishOutcome, SettleOutcome } from '../driver';
import { decodeEnvelope, decodeParsedEnvelope, type Envelope } from '../envelope';
import { prepareEncodedEnvelope } from '../envelope/validate';
import { normalizeError, QueueError } from '../errors';
import {
  type EventListener,
  type EventLogger,
  type EventSource,
  listenWithHooks,
  QUEUE_EVENT_NAMES,
  type QueueEvents,
  TypedEmitter,
  type Unsubscribe,
} from '../events';
import { checkOptions } from '../options';
import {
  type PayloadStoreOptions,
  type PayloadStoreStats,
  type PlannedOffload,
  StoredPayloads,
} from '../payload-store';
import {
  type AnyEvents,
  checkPayloadSchemas,
  type EnvelopeInputOf,
  type EventMap,
  type PayloadSchemas,
  payloadProblem,
} from '../payloads';
import { DEFAULT_RETRY, type RetryPolicy, resolveRetryPolicy, withRetry } from '../retry';
import { QUEUE_TELEMETRY, type QueueTelemetry, type Telemetry, tracedPublish } from '../telemetry';
import { callBoundMs, DEFAULT_CALL_TIMEOUT_MS, withDeadline } from './call-deadline';
import { CAP_OPTION, type CappedEvent, type CappedOption, type OptionCapper } from './capped-option';
import { coalescedSettles } from './coalesced-settles';
import type { Delivery } from './delivery';
import { boundAnswer, type CheckedMessage, checkDriverMessage, MAX_MESSAGE_ID_CHARS } from './driver-answer';
import { DriverCalls } from './driver-calls';
import {
  checkAttributeBytes,
  checkAttributes,
  checkDelay,
  checkDriver,
  checkGroupId,
  checkHold,
  checkLeaseSeconds,
  checkSize,
  checkWaitSeconds,
  entriesOf,
  messageSizeBytes,
} from './message-checks';
import { OffloadedDelivery } from './offloaded-delivery';
import { publishChunks } from './publish-chunks';
import { type DeliverySettler, ReceivedDelivery, type Settlement } from './received-delivery';
import { decisiveError, type EntryFailure, sendWithEntryRetry } from './send-with-entry-retry';
import { staleReceiptError } from './stale-receipt';

export interface PublishInput<E extends EventMap = AnyEvents> {
  envelope: EnvelopeInputOf<E>;
  attributes?: Record<string, string>;
  /** Per-group ordering key; only for drivers whose manifest declares `fifo-per-group`. */
  groupId?: string;
  /** Seconds before the message becomes visible; 0 by default. Up to 7 days on every driver. */
  delaySeconds?: number;
}

export interface PublishReceipt {
  eventId: string;
  messageId: string;
  /**
   * True when the provider said it absorbed this as a repeat of an earlier publish. Meaningful
   * only where the manifest declares `dedupe.reportsDuplicates`; elsewhere it is always false,
   * and false means "not known" (the provider may have absorbed a repeat without saying).
   */
  duplicate: boolean;
  sizeBytes: number;
}

export interface ReceiveOptions {
  /** At most the manifest's `batch.receive`. Default 1. */
  maxMessages?: number;
  leaseSeconds?: number;
  /** At most the manifest's `longPollMaxSeconds`. Default 0. */
  waitSeconds?: number;
  signal?: AbortSignal;
}

/** One outcome per entry of a batch settle, in order. */
export type SettleResult = SettleOutcome;

export interface QueueHooks {
  /** A retryable driver failure is about to be retried. */
  onRetry?(info: { operation: string; attempt: number; delayMs: number; error: QueueError }): void;
  /** A received body was not a valid envelope; it is dead-lettered where the driver can, else left to expire. */
  onInvalidMessage?(info: { messageId: string; receiveCount: number; error: QueueError }): void;
  /** The delay bridge could not re-send or settle a hop; the hop comes back when its lease ends. */
  onBridgeError?(info: { eventId: string; messageId: string; error: QueueError }): void;
}

export interface QueueOptions<E extends EventMap = AnyEvents> {
  /** Retries of the driver's calls; defaults to `DEFAULT_RETRY`. */
  retry?: Partial<RetryPolicy>;
  /** Narrow the portable limits further; they can never be widened past the driver's manifest. */
  limits?: PortableLimits;
  /** The clock for leases, the delay bridge and consumer timing; retries of network calls always use real time. */
  clock?: Clock;
  /** Listeners of the `retry`, `invalid-message` and `bridge-error` events, set at construction. */
  hooks?: QueueHooks;
  /** Where problem events nothing listens to are logged, once per kind (its consumers' too); `console` by default. */
  logger?: EventLogger;
  /** Lease used by `receive` when none is given. */
  defaultLeaseSeconds?: number;
  /**
   * The deadline, in milliseconds, on each provider call (publish, receive, ack, release,
   * extendLease, deadLetter); 30 s by default. A receive gets its long poll on top. Where the
   * driver declares a deadline of its own (`driver.callTimeoutMs`), the bound is never below
   * that plus a second, so the driver's own error comes first. A call past its deadline fails
   * with a retryable UNAVAILABLE (`details.timedOut`), retried under `retry` like any other, and
   * its late answer is dropped: messages a late receive brings are not handed out and come
   * back when their lease ends.
   */
  callTimeoutMs?: number;
  /**
   * A Standard Schema per event type (zod, valibot, arktype…). Declared, they type the queue
   * (`Queue<E>` is inferred from them) and every payload is checked: a publish that fails is
   * refused with the path of the field, a received one is dead-lettered with the reason and
   * never reaches a handler. A type with no schema is refused the same way.
   */
  payloadSchemas?: PayloadSchemas<E>;
  /**
   * Payloads past `thresholdBytes` go to `store` and the message carries a reference to them
   * (a `payload_ref` in the reserved `queueport:` scheme), so the body limit applies to the
   * envelope with the reference. A receive resolves it before any handler runs, checked against
   * `payload_sha256`; a payload that is missing or altered never reaches a handler (see
   * `payloadStoreStats`). Without this option a reserved reference fails closed the same way.
   */
  payloadStore?: PayloadStoreOptions;
  /**
   * Where publishes, receives, settles and handler runs are reported (`@queueport/otel` makes
   * one over OpenTelemetry). Publishes then carry their trace context in the reserved
   * `queueport.trace` attribute. Without it nothing is reported and nothing is added.
   */
  telemetry?: Telemetry;
}

/** Bounds the passes of one receive that found only bridge hops or invalid bodies. */
const MAX_EMPTY_PASSES = 50;

/**
 * The portable queue: the only type an application touches. It owns everything that is the same
 * for every provider (validation against the manifest, envelope encoding, the error taxonomy,
 * retries, batching to the manifest's limits, delays past the provider's native maximum) so a
 * driver stays a thin translation of a few calls.
 */
export class Queue<E extends EventMap = AnyEvents>
  implements DeliverySettler, EventSource<QueueEvents>, OptionCapper
{
  readonly driver: Driver;
  /** The driver's manifest narrowed to the portable limits: what this queue enforces. */
  readonly capabilities: Capabilities;
  readonly clock: Clock;
  readonly #retry: RetryPolicy;
  /** The bound on each provider call (a receive's long poll comes on top): see `QueueOptions.callTimeoutMs`. */
  readonly callTimeoutMs: number;
  /** Where this queue and its consumers log problem events that nothing listens to. */
  readonly logger: EventLogger;
  readonly #events: TypedEmitter<QueueEvents>;
  readonly #defaultLease: number;
  readonly #bridge: DelayBridge | undefined;
  readonly #payloadSchemas: Readonly<Record<string, StandardSchemaV1>> | undefined;
  readonly #payloads: StoredPayloads;
  readonly #telemetry: QueueTelemetry | undefined;
  readonly #consumers = new Set<Consumer>();
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Consumers drain after close() began: their settles still reach the driver until it closes. */
  readonly #calls: DriverCalls;
  /** Single settles (a delivery's ack, release, deadLetter), joined per turn into batch calls. */
  readonly #acks: (delivery: ReceivedDelivery) => Promise<void>;
  readonly #releases: (entry: { delivery: ReceivedDelivery; delaySeconds: number }) => Promise<void>;
  readonly #deadLetters: (entry: { delivery: ReceivedDelivery; reason: string }) => Promise<void>;

  constructor(driver: Driver, queueOptions: QueueOptions<E> = {}) {
    checkDriver(driver);
    const options = checkOptions('queue options', queueOptions);
    assertCapabilities(driver.capabilities, driver.name);
    this.driver = driver;
    this.#calls = new DriverCalls(driver.name);
    this.capabilities = effectiveCapabilities(driver.capabilities, options.limits, BRIDGE_RESERVED_BYTES);
    this.clock = options.clock ?? systemClock;
    this.#retry = resolveRetryPolicy(options.retry, DEFAULT_RETRY);
    this.callTimeoutMs = callBoundMs(options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, driver.callTimeoutMs);
    this.logger = options.logger ?? console;
    this.#events = new TypedEmitter<QueueEvents>({
      source: `queue over ${driver.name}`,
      names: QUEUE_EVENT_NAMES,
      problems: ['invalid-message', 'bridge-error', 'driver-fault'],
      logger: this.logger,
    });
    listenWithHooks(this.#events, options.hooks);
    const { delay } = this.capabilities;
    this.#bridge =
      delay.nativeMaxSeconds < delay.maxSeconds ? new DelayBridge(this.capabilities, this.clock) : undefined;
    this.#defaultLease = options.defaultLeaseSeconds ?? Math.min(30, this.capabilities.leaseSeconds.max);
    checkLeaseSeconds(this.#defaultLease, this.capabilities, 'defaultLeaseSeconds');
    this.#payloadSchemas =
      options.payloadSchemas === undefined ? undefined : checkPayloadSchemas(options.payloadSchemas);
    this.#payloads = new StoredPayloads(
      options.payloadStore,
      this.capabilities.maxBodyBytes,
      this.callTimeoutMs,
    );
    const batchSize = this.capabilities.batch.settle;
    this.#acks = coalescedSettles(batchSize, (deliveries) => this.#ack(deliveries));
    this.#releases = coalescedSettles(batchSize, (entries) => this.#release(entries));
    this.#deadLetters = coalescedSettles(batchSize, (entries) => this.#moveToDeadLetters(entries));
    this.#telemetry = options.telemetry?.forQueue(this);
  }

  /** What this queue reports to, for its consumers. */
  get [QUEUE_TELEMETRY](): QueueTelemetry | undefined {
    return this.#telemetry;
  }

  get name(): string {
    return this.driver.name;
  }

  /** Payloads offloaded, resolved and refused (by reason) through the `payloadStore` since this queue was made. */
  get payloadStoreStats(): PayloadStoreStats {
    return this.#payloads.stats;
  }

  /** Whether delays past the provider's native maximum go through the delay bridge. */
  get bridgesDelays(): boolean {
    return this.#bridge !== undefined;
  }

  on<K extends keyof QueueEvents & string>(name: K, listener: EventListener<QueueEvents[K]>): Unsubscribe {
    return this.#events.on(name, listener);
  }

  once<K extends keyof QueueEvents & string>(name: K, listener: EventListener<QueueEvents[K]>): Unsubscribe {
    return this.#events.once(name, listener);
  }

  off<K extends keyof QueueEvents & string>(name: K, listener: EventListener<QueueEvents[K]>): void {
    this.#events.off(name, listener);
  }

  listenerCount(name: keyof QueueEvents & string): number {
    return this.#events.listenerCount(name);
  }

  async publish(input: PublishInput<E>): Promise<PublishReceipt> {
    const [receipt] = await this.publishBatch([input]);
    return receipt!;
  }

  /**
   * Validates every message before sending any, so a rejected batch enqueues nothing. Sends in
   * chunks of the manifest's `batch.publish`; entries that fail retryably are retried on their own.
   */
  async publishBatch(inputs: readonly PublishInput<E>[]): Promise<PublishReceipt[]> {
    this.#assertOpen();
    return this.#calls.hold(() => this.#publishBatch(inputs));
  }

  async #publishBatch(inputs: readonly PublishInput<E>[]): Promise<PublishReceipt[]> {
    // Read once, holes refused: `[a, , b]` would otherwise reach the driver with a gap in it.
    const prepared = entriesOf(inputs, 'publishBatch', 'inputs').map((input, index) =>
      // The payload's type is a compile-time claim; #prepare checks the value as JSON at run time.
      this.#prepare(input as unknown as PublishInput, index),
    );
    const schemas = this.#payloadSchemas;
    if (schemas) {
      // The prepared envelope is checked, not the input: it is the snapshot that gets sent.
      const problems = await Promise.all(prepared.map((p) => payloadProblem(schemas, p.envelope)));
      const index = problems.findIndex((problem) => problem !== undefined);
      if (index !== -1) throw withEntryField(problems[index]!, index);
    }
    await this.#payloads.store(prepared.map((p) => p.offload));
    // A driver that does not declare it reports duplicates at best sometimes: a true from it
    // would make portable code treat the rare answer as a rule, so its receipts say "not known".
    const reportsDuplicates = this.capabilities.dedupe.reportsDuplicates === true;
    const send = (messages: readonly OutgoingMessage[]) => this.#publishOutgoing(messages);
    const outcomes = this.#telemetry
      ? await tracedPublish(
          this.#telemetry,
          prepared,
          { maxBodyBytes: this.capabilities.maxBodyBytes, reportsDuplicates },
          send,
        )
      : await send(prepared.map((p) => p.outgoing));
    const error = decisiveError(outcomes);
    if (error) throw error;
    return outcomes.map((outcome, index) => ({
      eventId: prepared[index]!.envelope.event_id,
      messageId: (outcome as { messageId: string }).messageId,
      duplicate: reportsDuplicates && (outcome as { duplicate?: boolean }).duplicate === true,
      sizeBytes: prepared[index]!.sizeBytes,
    }));
  }

  async receive(receiveOptions: ReceiveOptions = {}): Promise<Delivery<E>[]> {
    this.#assertOpen();
    const telemetry = this.#telemetry;
    return this.#calls.hold(() =>
      telemetry ? this.#tracedReceive(telemetry, receiveOptions) : this.#receive(receiveOptions),
    );
  }

  async #tracedReceive(telemetry: QueueTelemetry, receiveOptions: ReceiveOptions): Promise<Delivery<E>[]> {
    const scope = telemetry.receive();
    const deliveries = await this.#receive(receiveOptions);
    const received = deliveries as unknown as ReceivedDelivery[];
    scope.end(received.map((delivery) => ({ delivery, traceContext: delivery.traceContext })));
    return deliveries;
  }

  async #receive(receiveOptions: ReceiveOptions): Promise<Delivery<E>[]> {
    const options = checkOptions('receive options', receiveOptions);
    const caps = this.capabilities;
    const requestedMessages = options.maxMessages ?? 1;
    if (!Number.isSafeInteger(requestedMessages) || requestedMessages < 1) {
      throw new QueueError('INVALID_ARGUMENT', `maxMessages must be a whole number, 1 or more`, {
        details: { field: 'maxMessages' },
      });
    }
    const leaseSeconds = checkLeaseSeconds(options.leaseSeconds ?? this.#defaultLease, caps);
    const requestedWait = checkWaitSeconds(options.waitSeconds ?? 0);
    const maxMessages = this[CAP_OPTION]('maxMessages', requestedMessages, caps.batch.receive, 'receive');
    const waitSeconds = this[CAP_OPTION]('waitSeconds', requestedWait, caps.longPollMaxSeconds, 'receive');
    const begunAt = this.clock.now();
    const deadline = begunAt + waitSeconds * 1000;
    // A receive in flight when the queue closes ends empty, as a long poll that found nothing.
    const ended = this.#calls.receivesEnded;
    for (let pass = 0; pass < MAX_EMPTY_PASSES; pass++) {
      // The first pass asks for the whole wait: a millisecond spent on checks is not the caller's.
      const startedAt = pass === 0 ? begunAt : this.clock.now();
      const wait = Math.max(0, Math.min(waitSeconds, (deadline - startedAt) / 1000));
      let answer: unknown;
      try {
        answer = await this.#call('receive', options.signal, () =>
          this.#bounded(
            'receive',
            (signal) => this.driver.receive({ maxMessages, leaseSeconds, waitSeconds: wait, signal }),
            { waitMs: wait * 1000, signals: [options.signal, ended] },
          ),
        );
      } catch (error) {
        if (ended.aborted) return [];
        throw error;
      }
      const messages = await this.#checkAnswer(answer, maxMessages);
      if (messages === undefined) return [];
      const deliveries = await this.#arrive(messages, startedAt + leaseSeconds * 1000);
      const hold = caps.maxHoldSeconds;
      if (hold !== undefined)
        for (const delivery of deliveries) delivery.holdEndsAt = startedAt + hold * 1000;
      // A pass that held only hops or bad bodies says nothing about what is behind them.
      // Every delivery's payload passed its schema (#arrive), which is what makes the cast true.
      if (deliveries.length > 0 || options.signal?.aborted || ended.aborted) {
        return deliveries as unknown as Delivery<E>[];
      }
      // Another pass only while the receive is within its own bound: a driver whose every answer
      // is refused (or whose give-backs time out) would otherwise hold it for 50 passes.
      if (this.clock.now() >= deadline + this.callTimeoutMs) return [];
    }
    return [];
  }

  /** An option past the provider's maximum, as the maximum; a `capped` event says so. */
  [CAP_OPTION](option: CappedOption, requested: number, max: number, source: CappedEvent['source']): number {
    if (requested <= max) return requested;
    this.#events.emit('capped', { option, requested, applied: max, source });
    return max;
  }

  /** Acks many deliveries in chunks of `batch.settle`; one outcome per delivery, never a throw per entry. */
  async ackBatch(deliveries: readonly Delivery<E>[]): Promise<SettleResult[]> {
    this.#assertDriverOpen();
    const own = entriesOf(deliveries, 'ackBatch', 'deliveries').map((delivery) => this.#own(delivery));
    return this.#calls.hold(() => this.#ack(own));
  }

  #ack(own: readonly ReceivedDelivery[]): Promise<SettleResult[]> {
    return this.#settleMany(own, 'ack', (chunk) => this.driver.ack(chunk.map((d) => d.receipt)), undefined, {
      settledAs: 'acked',
    });
  }

  /**
   * Releases many deliveries, each visible again after its delay (validated like a publish
   * delay). Delays past the provider's native maximum are re-sent through the delay bridge.
   */
  async releaseBatch(
    entries: ReadonlyArray<{ delivery: Delivery<E>; delaySeconds?: number }>,
  ): Promise<SettleResult[]> {
    this.#assertDriverOpen();
    const checked = entriesOf(entries, 'releaseBatch', 'entries').map((entry, index) => {
      const { delivery, delaySeconds } = checkOptions('release entry', entry, `entries[${index}].`);
      return {
        delivery: this.#own(delivery),
        delaySeconds: checkDelay(delaySeconds ?? 0, this.capabilities, 'release delay'),
      };
    });
    return this.#calls.hold(() => this.#release(checked));
  }

  async #release(
    checked: ReadonlyArray<{ delivery: ReceivedDelivery; delaySeconds: number }>,
  ): Promise<SettleResult[]> {
    const results = new Array<SettleResult>(checked.length);
    const native: number[] = [];
    const bridged: Array<{ index: number; hop: OutgoingMessage }> = [];
    checked.forEach(({ delivery, delaySeconds }, index) => {
      const hop = this.#bridge?.release(
        delivery.message,
        delivery.envelope.event_id,
        delivery.receiveCount,
        delaySeconds,
      );
      if (hop) bridged.push({ index, hop });
      else native.push(index);
    });
    const nativeResults = await this.#settleMany(
      native.map((i) => checked[i]!),
      'release',
      (chunk) =>
        this.driver.release(
          chunk.map((e) => ({ receipt: e.delivery.receipt, delaySeconds: e.delaySeconds })),
        ),
      (entry) => entry.delivery,
      { settledAs: 'released' },
    );
    native.forEach((index, position) => {
      results[index] = nativeResults[position]!;
    });
    if (bridged.length > 0) {
      const replaced = await this.#replace(
        bridged.map(({ index, hop }) => ({ delivery: checked[index]!.delivery, hop })),
        { confirmLease: true },
      );
      bridged.forEach(({ index }, position) => {
        const result = replaced[position]!;
        results[index] = result;
        if (result.ok) checked[index]!.delivery.settledAs = 'released';
      });
      this.#telemetry?.settled('released', replaced);
    }
    return results;
  }

  /** Runs `handler` over deliveries until closed; see ConsumeOptions for the policy. */
  consume(handler: Handler<E>, options: ConsumeOptions = {}): Consumer {
    this.#assertOpen();
    // The consumer never reads a payload: it only hands the Queue's own deliveries to the handler.
    const consumer = new Consumer(this as unknown as Queue, handler as unknown as Handler, options, () =>
      this.#consumers.delete(consumer),
    );
    this.#consumers.add(consumer);
    return consumer;
  }

  /**
   * Drains every consumer (within `timeoutMs`, as `consumer.close` does), ends the receives in
   * flight, waits for the operations in flight (each call to its answer or deadline; within
   * `timeoutMs` too, if given), then closes the driver: no call reaches it after that.
   * Idempotent: a later call waits for the same close, and a bound it gives applies too.
   */
  async close(closeOptions: CloseOptions = {}): Promise<void> {
    const options = checkOptions('close options', closeOptions);
    if (this.#closing) {
      if (options.timeoutMs !== undefined) {
        for (const consumer of this.#consumers) void consumer.close(options);
      }
    } else {
      this.#closed = true;
      this.#events.emit('closing', { timeoutMs: options.timeoutMs });
      this.#closing = (async () => {
        await Promise.all([...this.#consumers].map((consumer) => consumer.close(options)));
        await this.#calls.drain();
        await this.driver.close();
        this.#events.emit('closed', {});
      })();
    }
    if (options.timeoutMs !== undefined) this.#boundDrain(options.timeoutMs, this.#closing);
    return this.#closing;
  }

  /** The wait for operations in flight ends after `timeoutMs`; the timer goes once the close is done. */
  #boundDrain(timeoutMs: number, closing: Promise<void>): void {
    const timer = new AbortController();
    this.#calls.cutAfter(this.clock.sleep(timeoutMs, timer.signal));
    const stop = () => timer.abort();
    closing.then(stop, stop);
  }

  // DeliverySettler: what a single delivery's methods call. Ack, release and deadLetter are held
  // from the moment they are queued, so close waits for a settle still waiting for its batch.

  async ackOne(delivery: ReceivedDelivery): Promise<void> {
    this.#assertDriverOpen();
    const own = this.#own(delivery);
    await this.#calls.hold(() => this.#acks(own));
  }

  async releaseOne(delivery: ReceivedDelivery, delaySeconds: number | undefined): Promise<void> {
    this.#assertDriverOpen();
    const checkedDelay = checkDelay(delaySeconds ?? 0, this.capabilities, 'release delay');
    const entry = { delivery: this.#own(delivery), delaySeconds: checkedDelay };
    await this.#calls.hold(() => this.#releases(entry));
  }

  async extendOne(delivery: ReceivedDelivery, leaseSeconds: number): Promise<void> {
    this.#assertDriverOpen();
    const extend = this.driver.extendLease;
    if (!this.capabilities.leaseExtension || !extend) {
      throw new QueueError('INVALID_ARGUMENT', `${this.driver.name} cannot extend leases`);
    }
    const seconds = checkLeaseSeconds(leaseSeconds, this.capabilities);
    const startedAt = this.clock.now();
    // A lease already run out is for the stale-receipt path to refuse (LEASE_LOST), not the hold.
    if (startedAt < delivery.leaseExpiresAt) {
      checkHold(startedAt + seconds * 1000, delivery.holdEndsAt, this.capabilities, seconds);
    }
    const results = await this.#calls.hold(() =>
      this.#settleMany(
        [delivery],
        'extendLease',
        (chunk) =>
          extend.call(
            this.driver,
            chunk.map((d) => ({ receipt: d.receipt, leaseSeconds: seconds })),
          ),
        (d) => d,
        { settles: false },
      ),
    );
    throwIfFailed(results);
    delivery.leaseExpiresAt = startedAt + seconds * 1000;
  }

  async deadLetterOne(delivery: ReceivedDelivery, reason: string): Promise<void> {
    this.#assertDriverOpen();
    const move = this.driver.deadLetter;
    if (!this.capabilities.deadLetter.move || !move) {
      throw new QueueError('INVALID_ARGUMENT', `${this.driver.name} cannot move a message to dead letters`);
    }
    await this.#calls.hold(() => this.#deadLetters({ delivery, reason }));
  }

  #moveToDeadLetters(
    entries: ReadonlyArray<{ delivery: ReceivedDelivery; reason: string }>,
  ): Promise<SettleResult[]> {
    // deadLetterOne queues an entry only where the driver can move one.
    const move = this.driver.deadLetter!;
    return this.#settleMany(
      entries,
      'deadLetter',
      (chunk) =>
        move.call(
          this.driver,
          chunk.map((entry) => ({ receipt: entry.delivery.receipt, reason: entry.reason })),
        ),
      (entry) => entry.delivery,
      { settledAs: 'dead-lettered' },
    );
  }

  #prepare(
    input: PublishInput,
    index: number,
  ): { envelope: Envelope; outgoing: OutgoingMessage; sizeBytes: number; offload?: PlannedOffload } {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        'each publish takes { envelope, attributes?, groupId?, delaySeconds? }',
        { details: { field: `inputs[${index}]` } },
      );
    }
    // Each field read once; prepareEnvelope and checkAttributes snapshot what they read in turn.
    const {
      envelope: envelopeInput,
      attributes: attributesInput,
      delaySeconds: delay,
      groupId: group,
    } = checkOptions('publish input', input, `inputs[${index}].`);
    const prepared = prepareEncodedEnvelope(envelopeInput, {
      maxBytes: this.#payloads.maxEnvelopeBytes(this.capabilities.maxBodyBytes),
    });
    const { envelope } = prepared;
    const { body, offload } = this.#payloads.plan(envelope, prepared.body);
    const attributes = checkAttributes(attributesInput);
    checkAttributeBytes(attributes, this.capabilities, envelope.event_id);
    const sizeBytes = messageSizeBytes(body, attributes);
    checkSize(sizeBytes, this.capabilities, envelope.event_id);
    const delaySeconds = checkDelay(delay ?? 0, this.capabilities);
    const groupId = checkGroupId(group, this.capabilities, this.driver.name);
    const message: OutgoingMessage = {
      eventId: envelope.event_id,
      dedupeKey: envelope.event_id,
      body,
      attributes,
      delaySeconds,
      ...(groupId === undefined ? {} : { groupId }),
    };
    const outgoing = this.#bridge ? this.#bridge.publish(message) : message;
    return { envelope, outgoing, sizeBytes, ...(offload ? { offload } : {}) };
  }

  async #publishOutgoing(messages: readonly OutgoingMessage[]): Promise<Array<PublishOutcome>> {
    const outcomes: PublishOutcome[] = [];
    for (const chunk of publishChunks(messages, this.capabilities.batch)) {
      outcomes.push(
        ...(await sendWithEntryRetry(
          chunk,
          (pending) => this.#bounded('publish', () => this.driver.publish(pending)),
          { ...this.#entryRetry('publish'), checkSuccess: publishedProblem },
        )),
      );
    }
    return outcomes;
  }

  /**
   * Sends settle entries in chunks of `batch.settle`; an entry the Queue knows to be stale
   * (`staleReceiptError`) is refused here with LEASE_LOST, without asking the provider.
   */
  async #settleMany<E>(
    entries: readonly E[],
    operation: string,
    send: (chunk: readonly E[]) => Promise<SettleOutcome[]>,
    deliveryOf: (entry: E) => ReceivedDelivery = (entry) => entry as unknown as ReceivedDelivery,
    { settles = true, settledAs }: { settles?: boolean; settledAs?: Settlement } = {},
  ): Promise<SettleResult[]> {
    const results = new Array<SettleResult>(entries.length);
    const live: number[] = [];
    const now = this.clock.now();
    entries.forEach((entry, index) => {
      const stale = staleReceiptError(deliveryOf(entry), this.capabilities, this.driver.name, now);
      if (stale) results[index] = { ok: false, error: stale };
      else live.push(index);
    });
    const size = this.capabilities.batch.settle;
    for (let start = 0; start < live.length; start += size) {
      const indexes = live.slice(start, start + size);
      const outcomes = await sendWithEntryRetry(
        indexes.map((i) => entries[i]!),
        (chunk) => this.#bounded(operation, () => send(chunk)),
        this.#entryRetry(operation),
      );
      indexes.forEach((index, position) => {
        const outcome = outcomes[position]!;
        results[index] = outcome;
        if (outcome.ok && settles) {
          const settled = deliveryOf(entries[index]!);
          settled.settled = true;
          settled.settledAs = settledAs;
        }
      });
    }
    if (settledAs && this.#telemetry) this.#telemetry.settled(settledAs, results);
    return results;
  }

  /** What the bridge's hop replacement is made of: this Queue's publish, ack and lease check. */
  readonly #hopCalls: HopCalls<ReceivedDelivery> = {
    publish: (hops) => this.#publishOutgoing(hops),
    ack: (deliveries) =>
      this.#settleMany(deliveries, 'ack', (chunk) => this.driver.ack(chunk.map((d) => d.receipt))),
    confirmLeases: (deliveries) => this.#confirmLeases(deliveries),
  };

  #replace(
    entries: ReadonlyArray<HopReplacement<ReceivedDelivery>>,
    options?: { confirmLease?: boolean },
  ): Promise<SettleResult[]> {
    return replaceHops(entries, this.#hopCalls, options);
  }

  /**
   * Whether each delivery still holds its lease, as far as the Queue can learn without settling
   * it: asked of the provider (an extension) where it rejects stale receipts and can extend,
   * else the Queue's own rule alone.
   */
  async #confirmLeases(deliveries: readonly ReceivedDelivery[]): Promise<SettleResult[]> {
    const extend = this.driver.extendLease;
    const now = this.clock.now();
    if (this.capabilities.staleReceipt === 'ignored' || !this.capabilities.leaseExtension || !extend) {
      return deliveries.map((delivery) => {
        const stale = staleReceiptError(delivery, this.capabilities, this.driver.name, now);
        return stale ? { ok: false, error: stale } : { ok: true };
      });
    }
    const { min, max } = this.capabilities.leaseSeconds;
    const seconds = (d: ReceivedDelivery) =>
      Math.min(max, Math.max(min, 1, Math.ceil((d.leaseExpiresAt - now) / 1000)));
    return this.#settleMany(
      deliveries,
      'extendLease',
      (chunk) =>
        extend.call(
          this.driver,
          chunk.map((d) => ({ receipt: d.receipt, leaseSeconds: seconds(d) })),
        ),
      (d) => d,
      { settles: false },
    );
  }

  /**
   * What a receive answered, as messages fit to decode: at most `maxMessages` (the surplus given
   * back at once, a repeated receipt dropped, either reported as a `driver-fault`), each field
   * checked; a malformed message goes the invalid-message way. Undefined for an empty answer.
   */
  async #checkAnswer(answer: unknown, maxMessages: number): Promise<DriverMessage[] | undefined> {
    const { kept, surplus, faults } = boundAnswer(answer, maxMessages, this.driver.name);
    for (const { fault, count } of faults) {
      const what =
        fault === 'too-many-messages'
          ? `answered ${count} more message(s) than the ${maxMessages} asked for; they were given back`
          : `answered ${count} repeated receipt(s) in one receive; the repeats were dropped`;
      this.#events.emit('driver-fault', {
        operation: 'receive',
        fault,
        count,
        error: new QueueError('INTERNAL', `${this.driver.name} ${what}`, {
          details: { driverFault: fault, count, maxMessages },
        }),
      });
    }
    if (surplus.length > 0) await this.#giveBack(surplus);
    if (kept.length === 0) return undefined;
    const messages: DriverMessage[] = [];
    for (const entry of kept) {
      const checked = checkDriverMessage(entry, this.capabilities, this.driver.name);
      if (checked.ok) messages.push(checked.message);
      else await this.#refuseInvalid(checked, checked.error);
    }
    return messages;
  }

  /** Messages a receive should not have brought, visible again at once; a failure leaves them to their lease. */
  async #giveBack(receipts: readonly string[]): Promise<void> {
    const size = this.capabilities.batch.settle;
    for (let start = 0; start < receipts.length; start += size) {
      await sendWithEntryRetry(
        receipts.slice(start, start + size),
        (chunk) =>
          this.#bounded('release', () =>
            this.driver.release(chunk.map((receipt) => ({ receipt, delaySeconds: 0 }))),
          ),
        // One try: a surplus message that cannot be given back comes back when its lease ends.
        { ...this.#entryRetry('release'), policy: { ...this.#retry, maxAttempts: 1 } },
      );
    }
  }

  /** Decodes what a receive returned; hops not yet due go on through the bridge, bad bodies aside. */
  async #arrive(messages: readonly DriverMessage[], leaseExpiresAt: number): Promise<ReceivedDelivery[]> {
    const deliveries: ReceivedDelivery[] = [];
    const hops: Array<{ delivery: ReceivedDelivery; hop: OutgoingMessage }> = [];
    for (const message of messages) {
      let envelope: Envelope;
      try {
        envelope =
          message.parsedBody === undefined
            ? decodeEnvelope(message.body)
            : decodeParsedEnvelope(message.parsedBody);
      } catch (raw) {
        await this.#refuseInvalid(message, normalizeError(raw, this.driver.name));
        continue;
      }
      const arrival = this.#bridge
        ? this.#bridge.arrive(message, envelope.event_id)
        : ({ due: true, attributes: message.attributes, receiveCount: message.receiveCount } as const);
      if (arrival.due) {
        let resolvedBody: string | undefined;
        if (this.#payloads.isStored(envelope)) {
          try {
            ({ envelope, body: resolvedBody } = await this.#payloads.resolve(envelope));
          } catch (error) {
            // A store that cannot answer now is no reason to dead-letter: it comes back when its lease ends.
            await this.#refuseInvalid(message, error as QueueError, {
              deadLetter: !(error as QueueError).retryable,
            });
            continue;
          }
        }
        const problem = this.#payloadSchemas && (await payloadProblem(this.#payloadSchemas, envelope));
        if (problem) {
          await this.#refuseInvalid(message, problem);
          continue;
        }
        deliveries.push(
          resolvedBody === undefined
            ? new ReceivedDelivery(this, message, envelope, arrival, leaseExpiresAt)
            : new OffloadedDelivery(this, message, envelope, arrival, leaseExpiresAt, resolvedBody),
        );
      } else {
        const carrier = new ReceivedDelivery(
          this,
          message,
          envelope,
          { attributes: {}, receiveCount: 0 },
          leaseExpiresAt,
        );
        hops.push({ delivery: carrier, hop: arrival.next });
      }
    }
    if (hops.length > 0) {
      const results = await this.#replace(hops);
      results.forEach((result, index) => {
        if (result.ok) return;
        const { delivery } = hops[index]!;
        this.#events.emit('bridge-error', {
          eventId: delivery.envelope.event_id,
          messageId: delivery.messageId,
          error: result.error,
        });
      });
    }
    return deliveries;
  }

  /** A message that never reaches a handler: reported, then dead-lettered where the driver can and the receipt is usable. */
  async #refuseInvalid(
    message: Pick<CheckedMessage & { ok: false }, 'messageId' | 'receiveCount' | 'receipt'>,
    error: QueueError,
    { deadLetter = true }: { deadLetter?: boolean } = {},
  ): Promise<void> {
    const move = this.driver.deadLetter;
    const receipt = message.receipt;
    const canMove = Boolean(deadLetter && this.capabilities.deadLetter.move && move && receipt !== undefined);
    this.#events.emit('invalid-message', {
      messageId: message.messageId,
      receiveCount: message.receiveCount,
      error,
      deadLetter: canMove,
    });
    this.#telemetry?.invalid(canMove);
    if (!canMove || !move || receipt === undefined) return;
    const [outcome] = await sendWithEntryRetry(
      [{ receipt, reason: error.message }],
      (entries) => this.#bounded('deadLetter', () => move.call(this.driver, entries)),
      this.#entryRetry('deadLetter'),
    );
    if (outcome && !outcome.ok) throw outcome.error;
  }

  #own(delivery: Delivery<E> | ReceivedDelivery): ReceivedDelivery {
    if (!(delivery instanceof ReceivedDelivery) || delivery.settler !== this) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `a delivery can only be settled through the queue that received it`,
      );
    }
    return delivery;
  }

  #entryRetry(operation: string) {
    return {
      driverName: this.driver.name,
      operation,
      normalize: (error: unknown) => normalizeError(error, this.driver.name, this.driver.classifyError),
      policy: this.#retry,
      context: {
        onRetry: (info: { attempt: number; delayMs: number; error: QueueError }) =>
          this.#events.emit('retry', { operation, ...info }),
      },
    };
  }

  /** One provider call under the deadline (a receive's bound adds its long poll), refused once the driver closes. */
  #bounded<T>(
    operation: string,
    run: (signal: AbortSignal) => Promise<T>,
    { waitMs = 0, signals }: { waitMs?: number; signals?: ReadonlyArray<AbortSignal | undefined> } = {},
  ): Promise<T> {
    return this.#calls.run(operation, () =>
      withDeadline(
        {
          driverName: this.driver.name,
          operation,
          timeoutMs: waitMs + this.callTimeoutMs,
          clock: this.clock,
          ...(signals ? { signals } : {}),
        },
        run,
      ),
    );
  }

  #call<T>(operation: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    return withRetry(
      run,
      (error) => normalizeError(error, this.driver.name, this.driver.classifyError),
      this.#retry,
      {
        ...(signal ? { signal } : {}),
        onRetry: (info) => this.#events.emit('retry', { operation, ...info }),
      },
    );
  }

  #assertOpen(): void {
    if (this.#closed) throw this.#calls.closedError();
  }

  #assertDriverOpen(): void {
    if (this.#calls.closed) throw this.#calls.closedError();
  }
}

/** A publish success must name the stored message; `duplicate` is a flag or absent. */
function publishedProblem(outcome: { ok: true }): string | undefined {
  const { messageId, duplicate } = outcome as { messageId?: unknown; duplicate?: unknown };
  if (typeof messageId !== 'string' || messageId.length === 0 || messageId.length > MAX_MESSAGE_ID_CHARS) {
    return 'answered a success without a usable messageId';
  }
  if (duplicate !== undefined && typeof duplicate !== 'boolean')
    return 'answered a duplicate flag that is not a boolean';
  return undefined;
}

/** Which entry of a batch a payload problem is about. */
function withEntryField(problem: QueueError, index: number): QueueError {
  return new QueueError(problem.code, problem.message, { details: { ...problem.details, index } });
}

function throwIfFailed(results: readonly SettleResult[]): void {
  const failed = results.find((result): result is EntryFailure => !result.ok);
  if (failed) throw failed.error;
}
