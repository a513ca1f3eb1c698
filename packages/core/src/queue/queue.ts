import {
  assertCapabilities,
  type Capabilities,
  effectiveCapabilities,
  type PortableLimits,
} from '../capabilities';
import { type Clock, systemClock } from '../clock';
import { type ConsumeOptions, Consumer, type Handler } from '../consumer/consumer';
import { BRIDGE_RESERVED_BYTES, DelayBridge } from '../delay-bridge';
import type { Driver, DriverMessage, OutgoingMessage, PublishOutcome, SettleOutcome } from '../driver';
import { decodeEnvelope, type Envelope, type EnvelopeInput } from '../envelope';
import { prepareEncodedEnvelope } from '../envelope/validate';
import { normalizeError, QueueError } from '../errors';
import { checkOptions } from '../options';
import { DEFAULT_RETRY, type RetryPolicy, resolveRetryPolicy, withRetry } from '../retry';
import type { Delivery } from './delivery';
import {
  checkAttributes,
  checkDelay,
  checkDriver,
  checkGroupId,
  checkLeaseSeconds,
  checkSize,
  checkWaitSeconds,
  entriesOf,
  messageSizeBytes,
} from './message-checks';
import { type DeliverySettler, ReceivedDelivery } from './received-delivery';
import { decisiveError, type EntryFailure, sendWithEntryRetry } from './send-with-entry-retry';

export interface PublishInput {
  envelope: EnvelopeInput;
  attributes?: Record<string, string>;
  /** Per-group ordering key; only for drivers whose manifest declares `fifo-per-group`. */
  groupId?: string;
  /** Seconds before the message becomes visible; 0 by default. Up to 7 days on every driver. */
  delaySeconds?: number;
}

export interface PublishReceipt {
  eventId: string;
  messageId: string;
  /** True when the provider said it absorbed this as a repeat of an earlier publish. */
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

export interface QueueOptions {
  /** Retries of the driver's calls; defaults to `DEFAULT_RETRY`. */
  retry?: Partial<RetryPolicy>;
  /** Narrow the portable limits further; they can never be widened past the driver's manifest. */
  limits?: PortableLimits;
  /** The clock for leases, the delay bridge and consumer timing; retries of network calls always use real time. */
  clock?: Clock;
  hooks?: QueueHooks;
  /** Lease used by `receive` when none is given. */
  defaultLeaseSeconds?: number;
}

/** Bounds the passes of one receive that found only bridge hops or invalid bodies. */
const MAX_EMPTY_PASSES = 50;

/**
 * The portable queue: the only type an application touches. It owns everything that is the same
 * for every provider (validation against the manifest, envelope encoding, the error taxonomy,
 * retries, batching to the manifest's limits, delays past the provider's native maximum) so a
 * driver stays a thin translation of a few calls.
 */
export class Queue implements DeliverySettler {
  readonly driver: Driver;
  /** The driver's manifest narrowed to the portable limits: what this queue enforces. */
  readonly capabilities: Capabilities;
  readonly clock: Clock;
  readonly #retry: RetryPolicy;
  readonly #hooks: QueueHooks;
  readonly #defaultLease: number;
  readonly #bridge: DelayBridge | undefined;
  readonly #consumers = new Set<Consumer>();
  #closed = false;
  /** Consumers drain after close() began: their settles must still reach the driver until it closes. */
  #driverClosed = false;

  constructor(driver: Driver, queueOptions: QueueOptions = {}) {
    checkDriver(driver);
    const options = checkOptions('queue options', queueOptions);
    assertCapabilities(driver.capabilities, driver.name);
    this.driver = driver;
    this.capabilities = effectiveCapabilities(driver.capabilities, options.limits, BRIDGE_RESERVED_BYTES);
    this.clock = options.clock ?? systemClock;
    this.#retry = resolveRetryPolicy(options.retry, DEFAULT_RETRY);
    this.#hooks = options.hooks ?? {};
    const { delay } = this.capabilities;
    this.#bridge =
      delay.nativeMaxSeconds < delay.maxSeconds ? new DelayBridge(this.capabilities, this.clock) : undefined;
    this.#defaultLease = options.defaultLeaseSeconds ?? Math.min(30, this.capabilities.leaseSeconds.max);
    checkLeaseSeconds(this.#defaultLease, this.capabilities, 'defaultLeaseSeconds');
  }

  get name(): string {
    return this.driver.name;
  }

  /** Whether delays past the provider's native maximum go through the delay bridge. */
  get bridgesDelays(): boolean {
    return this.#bridge !== undefined;
  }

  async publish(input: PublishInput): Promise<PublishReceipt> {
    const [receipt] = await this.publishBatch([input]);
    return receipt!;
  }

  /**
   * Validates every message before sending any, so a rejected batch enqueues nothing. Sends in
   * chunks of the manifest's `batch.publish`; entries that fail retryably are retried on their own.
   */
  async publishBatch(inputs: readonly PublishInput[]): Promise<PublishReceipt[]> {
    this.#assertOpen();
    // Read once, holes refused: `[a, , b]` would otherwise reach the driver with a gap in it.
    const prepared = entriesOf(inputs, 'publishBatch', 'inputs').map((input, index) =>
      this.#prepare(input, index),
    );
    const outcomes = await this.#publishOutgoing(prepared.map((p) => p.outgoing));
    const error = decisiveError(outcomes);
    if (error) throw error;
    return outcomes.map((outcome, index) => ({
      eventId: prepared[index]!.envelope.event_id,
      messageId: (outcome as { messageId: string }).messageId,
      duplicate: (outcome as { duplicate?: boolean }).duplicate === true,
      sizeBytes: prepared[index]!.sizeBytes,
    }));
  }

  async receive(receiveOptions: ReceiveOptions = {}): Promise<Delivery[]> {
    this.#assertOpen();
    const options = checkOptions('receive options', receiveOptions);
    const caps = this.capabilities;
    const maxMessages = options.maxMessages ?? 1;
    if (!Number.isInteger(maxMessages) || maxMessages < 1 || maxMessages > caps.batch.receive) {
      throw new QueueError('INVALID_ARGUMENT', `maxMessages must be 1 to ${caps.batch.receive}`, {
        details: { field: 'maxMessages' },
      });
    }
    const leaseSeconds = checkLeaseSeconds(options.leaseSeconds ?? this.#defaultLease, caps);
    const waitSeconds = checkWaitSeconds(options.waitSeconds ?? 0, caps);
    const deadline = this.clock.now() + waitSeconds * 1000;
    for (let pass = 0; pass < MAX_EMPTY_PASSES; pass++) {
      const startedAt = this.clock.now();
      const wait = Math.max(0, Math.min(waitSeconds, (deadline - startedAt) / 1000));
      const messages = await this.#call('receive', options.signal, () =>
        this.driver.receive({
          maxMessages,
          leaseSeconds,
          waitSeconds: wait,
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      );
      if (messages.length === 0) return [];
      const deliveries = await this.#arrive(messages, startedAt + leaseSeconds * 1000);
      // A pass that held only hops or bad bodies says nothing about what is behind them.
      if (deliveries.length > 0 || options.signal?.aborted) return deliveries;
    }
    return [];
  }

  /** Acks many deliveries in chunks of `batch.settle`; one outcome per delivery, never a throw per entry. */
  async ackBatch(deliveries: readonly Delivery[]): Promise<SettleResult[]> {
    this.#assertDriverOpen();
    const own = entriesOf(deliveries, 'ackBatch', 'deliveries').map((delivery) => this.#own(delivery));
    return this.#settleMany(own, 'ack', (chunk) => this.driver.ack(chunk.map((d) => d.receipt)));
  }

  /**
   * Releases many deliveries, each visible again after its delay (validated like a publish
   * delay). Delays past the provider's native maximum are re-sent through the delay bridge.
   */
  async releaseBatch(
    entries: ReadonlyArray<{ delivery: Delivery; delaySeconds?: number }>,
  ): Promise<SettleResult[]> {
    this.#assertDriverOpen();
    const checked = entriesOf(entries, 'releaseBatch', 'entries').map((entry, index) => {
      const { delivery, delaySeconds } = checkOptions('release entry', entry, `entries[${index}].`);
      return {
        delivery: this.#own(delivery),
        delaySeconds: checkDelay(delaySeconds ?? 0, this.capabilities, 'release delay'),
      };
    });
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
        results[index] = replaced[position]!;
      });
    }
    return results;
  }

  /** Runs `handler` over deliveries until closed; see ConsumeOptions for the policy. */
  consume(handler: Handler, options: ConsumeOptions = {}): Consumer {
    this.#assertOpen();
    const consumer = new Consumer(this, handler, options, () => this.#consumers.delete(consumer));
    this.#consumers.add(consumer);
    return consumer;
  }

  /** Drains every consumer, then closes the driver. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#consumers].map((consumer) => consumer.close()));
    this.#driverClosed = true;
    await this.driver.close();
  }

  // DeliverySettler: what a single delivery's methods call.

  async ackOne(delivery: ReceivedDelivery): Promise<void> {
    throwIfFailed(await this.ackBatch([delivery]));
  }

  async releaseOne(delivery: ReceivedDelivery, delaySeconds: number | undefined): Promise<void> {
    throwIfFailed(
      await this.releaseBatch([{ delivery, ...(delaySeconds === undefined ? {} : { delaySeconds }) }]),
    );
  }

  async extendOne(delivery: ReceivedDelivery, leaseSeconds: number): Promise<void> {
    this.#assertDriverOpen();
    const extend = this.driver.extendLease;
    if (!this.capabilities.leaseExtension || !extend) {
      throw new QueueError('INVALID_ARGUMENT', `${this.driver.name} cannot extend leases`);
    }
    const seconds = checkLeaseSeconds(leaseSeconds, this.capabilities);
    const startedAt = this.clock.now();
    const results = await this.#settleMany(
      [delivery],
      'extendLease',
      (chunk) =>
        extend.call(
          this.driver,
          chunk.map((d) => ({ receipt: d.receipt, leaseSeconds: seconds })),
        ),
      (d) => d,
      { settles: false },
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
    throwIfFailed(
      await this.#settleMany([delivery], 'deadLetter', (chunk) =>
        move.call(
          this.driver,
          chunk.map((d) => ({ receipt: d.receipt, reason })),
        ),
      ),
    );
  }

  #prepare(
    input: PublishInput,
    index: number,
  ): { envelope: Envelope; outgoing: OutgoingMessage; sizeBytes: number } {
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
    const { envelope, body } = prepareEncodedEnvelope(envelopeInput, {
      maxBytes: this.capabilities.maxBodyBytes,
    });
    const attributes = checkAttributes(attributesInput);
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
    return { envelope, outgoing: this.#bridge ? this.#bridge.publish(message) : message, sizeBytes };
  }

  async #publishOutgoing(messages: readonly OutgoingMessage[]): Promise<Array<PublishOutcome>> {
    const outcomes: PublishOutcome[] = [];
    const size = this.capabilities.batch.publish;
    for (let start = 0; start < messages.length; start += size) {
      const chunk = messages.slice(start, start + size);
      outcomes.push(
        ...(await sendWithEntryRetry(
          chunk,
          (pending) => this.driver.publish(pending),
          this.#entryRetry('publish'),
        )),
      );
    }
    return outcomes;
  }

  /**
   * Sends settle entries in chunks of `batch.settle`. Where the provider ignores stale receipts,
   * an entry whose lease the Queue knows to have run out is refused here with LEASE_LOST: the
   * provider would say success whether or not someone else holds the message now.
   */
  async #settleMany<E>(
    entries: readonly E[],
    operation: string,
    send: (chunk: readonly E[]) => Promise<SettleOutcome[]>,
    deliveryOf: (entry: E) => ReceivedDelivery = (entry) => entry as unknown as ReceivedDelivery,
    { settles = true }: { settles?: boolean } = {},
  ): Promise<SettleResult[]> {
    const results = new Array<SettleResult>(entries.length);
    const live: number[] = [];
    const now = this.clock.now();
    entries.forEach((entry, index) => {
      if (this.capabilities.staleReceipt === 'ignored' && deliveryOf(entry).leaseExpiresAt <= now) {
        results[index] = { ok: false, error: leaseLostLocally(this.driver.name) };
      } else live.push(index);
    });
    const size = this.capabilities.batch.settle;
    for (let start = 0; start < live.length; start += size) {
      const indexes = live.slice(start, start + size);
      const outcomes = await sendWithEntryRetry(
        indexes.map((i) => entries[i]!),
        send,
        this.#entryRetry(operation),
      );
      indexes.forEach((index, position) => {
        const outcome = outcomes[position]!;
        results[index] = outcome;
        if (outcome.ok && settles) deliveryOf(entries[index]!).settled = true;
      });
    }
    return results;
  }

  /**
   * The bridge's move: publish each hop first, and settle the message it replaces only once that
   * worked. A release (`confirmLease`) first makes sure its lease still holds, so a stale release
   * cannot leave a second copy behind: refused here where the provider ignores stale receipts,
   * asked of the provider (an extension) where it rejects them.
   */
  async #replace(
    entries: ReadonlyArray<{ delivery: ReceivedDelivery; hop: OutgoingMessage }>,
    { confirmLease = false }: { confirmLease?: boolean } = {},
  ): Promise<SettleResult[]> {
    const results = new Array<SettleResult>(entries.length);
    let live = entries.map((_, index) => index);
    if (confirmLease) {
      const confirmed = await this.#confirmLeases(entries.map((e) => e.delivery));
      live = live.filter((index) => {
        const outcome = confirmed[index]!;
        if (!outcome.ok) results[index] = outcome;
        return outcome.ok;
      });
    }
    const published = await this.#publishOutgoing(live.map((i) => entries[i]!.hop));
    const sent: number[] = [];
    published.forEach((outcome, position) => {
      const index = live[position]!;
      if (outcome.ok) sent.push(index);
      else results[index] = outcome;
    });
    const acked = await this.#settleMany(
      sent.map((i) => entries[i]!.delivery),
      'ack',
      (chunk) => this.driver.ack(chunk.map((d) => d.receipt)),
    );
    sent.forEach((index, position) => {
      results[index] = acked[position]!;
    });
    return results;
  }

  /** Whether each delivery still holds its lease, as far as the Queue can learn without settling it. */
  async #confirmLeases(deliveries: readonly ReceivedDelivery[]): Promise<SettleResult[]> {
    const extend = this.driver.extendLease;
    const now = this.clock.now();
    if (this.capabilities.staleReceipt === 'ignored' || !this.capabilities.leaseExtension || !extend) {
      return deliveries.map((delivery) =>
        this.capabilities.staleReceipt === 'ignored' && delivery.leaseExpiresAt <= now
          ? { ok: false, error: leaseLostLocally(this.driver.name) }
          : { ok: true },
      );
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

  /** Decodes what a receive returned; hops not yet due go on through the bridge, bad bodies aside. */
  async #arrive(messages: readonly DriverMessage[], leaseExpiresAt: number): Promise<ReceivedDelivery[]> {
    const deliveries: ReceivedDelivery[] = [];
    const hops: Array<{ delivery: ReceivedDelivery; hop: OutgoingMessage }> = [];
    for (const message of messages) {
      let envelope: Envelope;
      try {
        envelope = decodeEnvelope(message.body);
      } catch (raw) {
        await this.#refuseInvalid(message, normalizeError(raw, this.driver.name));
        continue;
      }
      const arrival = this.#bridge
        ? this.#bridge.arrive(message, envelope.event_id)
        : ({ due: true, attributes: message.attributes, receiveCount: message.receiveCount } as const);
      if (arrival.due) {
        deliveries.push(new ReceivedDelivery(this, message, envelope, arrival, leaseExpiresAt));
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
        this.#hooks.onBridgeError?.({
          eventId: delivery.envelope.event_id,
          messageId: delivery.messageId,
          error: result.error,
        });
      });
    }
    return deliveries;
  }

  async #refuseInvalid(message: DriverMessage, error: QueueError): Promise<void> {
    this.#hooks.onInvalidMessage?.({
      messageId: message.messageId,
      receiveCount: message.receiveCount,
      error,
    });
    const move = this.driver.deadLetter;
    if (!this.capabilities.deadLetter.move || !move) return;
    const [outcome] = await sendWithEntryRetry(
      [{ receipt: message.receipt, reason: error.message }],
      (entries) => move.call(this.driver, entries),
      this.#entryRetry('deadLetter'),
    );
    if (outcome && !outcome.ok) throw outcome.error;
  }

  #own(delivery: Delivery): ReceivedDelivery {
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
          this.#hooks.onRetry?.({ operation, ...info }),
      },
    };
  }

  #call<T>(operation: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    return withRetry(
      run,
      (error) => normalizeError(error, this.driver.name, this.driver.classifyError),
      this.#retry,
      {
        ...(signal ? { signal } : {}),
        onRetry: (info) => this.#hooks.onRetry?.({ operation, ...info }),
      },
    );
  }

  #assertOpen(): void {
    if (this.#closed) throw new QueueError('CLOSED', `queue over ${this.driver.name} is closed`);
  }

  #assertDriverOpen(): void {
    if (this.#driverClosed) throw new QueueError('CLOSED', `queue over ${this.driver.name} is closed`);
  }
}

function throwIfFailed(results: readonly SettleResult[]): void {
  const failed = results.find((result): result is EntryFailure => !result.ok);
  if (failed) throw failed.error;
}

function leaseLostLocally(driverName: string): QueueError {
  return new QueueError(
    'LEASE_LOST',
    `the lease for this delivery ran out; ${driverName} cannot tell whether the message was delivered again, so it is not settled`,
  );
}
