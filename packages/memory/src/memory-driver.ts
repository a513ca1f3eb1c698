import { randomUUID } from 'node:crypto';
import type { QueueStats } from '@queueport/core';
import {
  type Capabilities,
  type Clock,
  type DeadLetterEntry,
  type DedupeCapability,
  type Driver,
  type DriverMessage,
  type ExtendEntry,
  FIFO_DEDUPE_WINDOW_SECONDS,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  MAX_LONG_POLL_SECONDS,
  MAX_RETENTION_SECONDS,
  type OutgoingMessage,
  PROVIDER_ATTRIBUTES,
  type PublishOutcome,
  QueueError,
  RESERVED_ATTRIBUTE_BYTES,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
  systemClock,
} from '@queueport/core/driver';
import { DedupeIndex } from './dedupe-index';
import { checkMemoryOptions } from './memory-options';
import type { DeadLetter, StoredMessage } from './stored-message';

export interface MemoryDriverOptions {
  /** Inject a VirtualClock to move leases, delays and retention without sleeping. */
  clock?: Clock;
  name?: string;
  /** Default: a 5-minute window, like SQS and Infrai FIFO queues. */
  dedupe?: DedupeCapability;
  /** Default: per-group FIFO, the strictest ordering any provider offers. */
  ordering?: Capabilities['ordering'];
  /** Default false: whole seconds, like SQS and Infrai. */
  fractionalDelay?: boolean;
  /** Default 14 days, the portable retention. */
  retentionSeconds?: number;
  /** Most entries per publish, receive and settle call. Default 10, like SQS. */
  batchMax?: number;
  /** Moves a message to the dead letters instead of delivering it for the (n+1)th time, like SQS's redrive. */
  maxReceives?: number;
  /**
   * The longest delay this driver holds itself (default 7 days). Lower it (900 for SQS's limit)
   * and the Queue bridges longer delays hop by hop; the driver refuses any longer delay, so a
   * bridge that forgot one fails loudly.
   */
  nativeMaxDelaySeconds?: number;
  /**
   * Imitates a provider that ends a hold on its own (SQS: 12 hours from the receive): an
   * extension past this many seconds from the receive is refused, as the provider would.
   */
  maxHoldSeconds?: number;
  /**
   * Imitates a provider that bounds attributes apart from the body (RabbitMQ's headers fit one
   * frame): a publish whose attribute names and values take more bytes is refused.
   */
  maxAttributeBytes?: number;
}

/**
 * The reference driver. It declares every capability so the conformance suite exercises every
 * property, and it keeps them exactly, so it is the baseline other drivers are compared with.
 */
export class MemoryDriver implements Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly #clock: Clock;
  readonly #messages = new Map<string, StoredMessage>();
  readonly #byReceipt = new Map<string, string>();
  readonly #dedupe: DedupeIndex;
  readonly #deadLetters: DeadLetter[] = [];
  readonly #maxReceives: number | undefined;
  readonly #instance = randomUUID().slice(0, 8);
  #seq = 0;
  /** Counts simulated connection drops: a receive that began before one ends empty. */
  #connection = 0;
  #deleted = false;
  #wake: { promise: Promise<void>; resolve: () => void } = deferred();

  constructor(given: MemoryDriverOptions = {}) {
    const options = checkMemoryOptions(given);
    this.name = options.name ?? 'memory';
    this.#clock = options.clock ?? systemClock;
    this.#maxReceives = options.maxReceives;
    const dedupe = options.dedupe ?? { kind: 'window', windowSeconds: FIFO_DEDUPE_WINDOW_SECONDS };
    const batchMax = options.batchMax ?? 10;
    this.#dedupe = new DedupeIndex(dedupe);
    this.capabilities = {
      maxBodyBytes: MAX_BODY_BYTES,
      delay: {
        maxSeconds: MAX_DELAY_SECONDS,
        nativeMaxSeconds: options.nativeMaxDelaySeconds ?? MAX_DELAY_SECONDS,
        fractional: options.fractionalDelay ?? false,
      },
      // The driver knows which publishes it absorbed, so its answer may say so.
      dedupe: dedupe.kind === 'none' ? dedupe : { reportsDuplicates: true, ...dedupe },
      ordering: options.ordering ?? 'fifo-per-group',
      leaseExtension: true,
      leaseSeconds: { min: 0, max: Math.min(43_200, options.maxHoldSeconds ?? 43_200) },
      ...(options.maxHoldSeconds === undefined ? {} : { maxHoldSeconds: options.maxHoldSeconds }),
      ...(options.maxAttributeBytes === undefined ? {} : { maxAttributeBytes: options.maxAttributeBytes }),
      longPollMaxSeconds: MAX_LONG_POLL_SECONDS,
      receiveCount: true,
      retentionSeconds: options.retentionSeconds ?? MAX_RETENTION_SECONDS,
      batch: { publish: batchMax, receive: batchMax, settle: batchMax },
      staleReceipt: 'rejected',
      deadLetter: { move: true, redriveAfterReceives: options.maxReceives ?? null },
    };
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    this.#assertExists();
    const now = this.#clock.now();
    this.#expire(now);
    const outcomes = messages.map((message): PublishOutcome => {
      const refused = this.#refusal(message);
      if (refused) return { ok: false, error: refused };
      const holder = this.#dedupe.holder(message.dedupeKey, now, (id) => this.#messages.has(id));
      if (holder) return { ok: true, messageId: holder, duplicate: true };
      const messageId = this.#enqueue(message, now, now + message.delaySeconds * 1000);
      this.#dedupe.remember(message.dedupeKey, messageId, now);
      return { ok: true, messageId, duplicate: false };
    });
    this.#notify();
    return outcomes;
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.#assertExists();
    const deadline = this.#clock.now() + request.waitSeconds * 1000;
    const connection = this.#connection;
    for (;;) {
      if (request.signal?.aborted || this.#deleted || connection !== this.#connection) return [];
      const taken = this.#take(request.maxMessages, request.leaseSeconds);
      const now = this.#clock.now();
      if (taken.length > 0 || now >= deadline) return taken;
      const wakeAt = Math.min(deadline, this.#nextVisibleAt(now));
      const timer = new AbortController();
      const onAbort = () => timer.abort('receive aborted');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      await Promise.race([this.#wake.promise, this.#clock.sleep(wakeAt - now, timer.signal).catch(() => {})]);
      timer.abort('woken');
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(receipts, (receipt) => {
      this.#remove(this.#leased(receipt, { allowExpired: true }));
    });
  }

  async release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, delaySeconds }) => {
      if (delaySeconds > this.capabilities.delay.nativeMaxSeconds) throw this.#tooLong(delaySeconds);
      const message = this.#leased(receipt, { allowExpired: true });
      this.#byReceipt.delete(receipt);
      message.receipt = undefined;
      message.visibleAt = this.#clock.now() + delaySeconds * 1000;
    });
  }

  async extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, leaseSeconds }) => {
      const message = this.#leased(receipt, { allowExpired: false });
      const endsAt = this.#clock.now() + leaseSeconds * 1000;
      const hold = this.capabilities.maxHoldSeconds;
      if (hold !== undefined && endsAt > message.takenAt + hold * 1000) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          `${this.name} holds a message at most ${hold} s from its receive`,
        );
      }
      message.visibleAt = endsAt;
    });
  }

  async deadLetter(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, reason }) => {
      this.#bury(this.#leased(receipt, { allowExpired: true }), reason);
    });
  }

  /**
   * Nothing to let go of: the messages live as long as the driver object. The Queue ends its
   * receives and waits for its calls before it closes a driver, and makes none after.
   */
  async close(): Promise<void> {}

  /**
   * Simulates a dropped provider connection (a broker restart, a network cut) and the reconnect
   * right after: every receipt handed out before it is stale from now on (its settles fail with
   * LEASE_LOST), the messages it leased stay hidden until their lease runs out and are then
   * delivered again, and waiting long polls end empty. For the conformance suite's
   * `connection-drop` property.
   */
  dropConnection(): void {
    this.#connection++;
    for (const message of this.#messages.values()) {
      if (message.receipt === undefined) continue;
      this.#byReceipt.delete(message.receipt);
      message.receipt = undefined;
    }
    this.#notify();
  }

  /** The queue is gone, as after a provider's DeleteQueue: every later call is NOT_FOUND. */
  delete(): void {
    this.#deleted = true;
    this.#messages.clear();
    this.#byReceipt.clear();
    this.#notify();
  }

  /** Messages moved to the dead letters, oldest first. */
  deadLetters(): readonly DeadLetter[] {
    return this.#deadLetters;
  }

  /** Messages still held: waiting, delayed or leased. */
  depth(): number {
    this.#expire(this.#clock.now());
    return this.#messages.size;
  }

  stats(): QueueStats {
    const now = this.#clock.now();
    this.#expire(now);
    let oldestReady: number | undefined;
    for (const message of this.#messages.values()) {
      if (message.visibleAt <= now && (oldestReady === undefined || message.enqueuedAt < oldestReady)) {
        oldestReady = message.enqueuedAt;
      }
    }
    return {
      depth: this.#messages.size,
      oldestReadyAgeSeconds: oldestReady === undefined ? null : (now - oldestReady) / 1000,
      deadLetters: this.#deadLetters.length,
    };
  }

  /** Moves up to `limit` dead letters, oldest first, back to the queue as new messages. */
  redriveDeadLetters(limit: number): number {
    this.#assertExists();
    const now = this.#clock.now();
    const moved = this.#deadLetters.splice(0, Math.max(0, limit));
    for (const dead of moved) this.#enqueue(dead, now, now);
    if (moved.length > 0) this.#notify();
    return moved.length;
  }

  /** Deletes every message held (not the dead letters). */
  purge(): void {
    for (const message of this.#messages.values()) this.#remove(message);
  }

  #take(max: number, leaseSeconds: number): DriverMessage[] {
    const now = this.#clock.now();
    this.#expire(now);
    const grouped = this.capabilities.ordering === 'fifo-per-group';
    const blockedGroups = new Set<string>();
    const taken: DriverMessage[] = [];
    // A Map iterates in insertion order, and messages are inserted once, in seq order.
    for (const message of this.#messages.values()) {
      if (taken.length >= max) break;
      const group = grouped ? message.groupId : undefined;
      if (group !== undefined && blockedGroups.has(group)) continue;
      // The oldest message of a group decides for the whole group: it is either deliverable now,
      // or leased or delayed, and then nothing behind it may overtake it.
      if (group !== undefined) blockedGroups.add(group);
      if (message.visibleAt > now) continue;
      if (this.#maxReceives !== undefined && message.receiveCount >= this.#maxReceives) {
        this.#bury(message, `received ${message.receiveCount} times`);
        if (group !== undefined) blockedGroups.delete(group);
        continue;
      }
      if (message.receipt) this.#byReceipt.delete(message.receipt);
      const receipt = randomUUID();
      message.receipt = receipt;
      message.receiveCount++;
      message.takenAt = now;
      message.visibleAt = now + leaseSeconds * 1000;
      this.#byReceipt.set(receipt, message.messageId);
      taken.push({
        receipt,
        messageId: message.messageId,
        body: message.body,
        attributes: { ...message.attributes },
        receiveCount: message.receiveCount,
        ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
      });
    }
    return taken;
  }

  /**
   * The message this receipt leases. After the lease runs out the receipt still settles the
   * message until someone else receives it (as SQS does); after that it is LEASE_LOST.
   */
  #leased(receipt: string, { allowExpired }: { allowExpired: boolean }): StoredMessage {
    const messageId = this.#byReceipt.get(receipt);
    const message = messageId === undefined ? undefined : this.#messages.get(messageId);
    if (
      !message ||
      message.receipt !== receipt ||
      (!allowExpired && message.visibleAt <= this.#clock.now())
    ) {
      throw new QueueError(
        'LEASE_LOST',
        'the lease for this delivery was lost (expired and redelivered, or settled)',
      );
    }
    return message;
  }

  /** Stores a new message (its id in seq order, so Map order is enqueue order) and returns its id. */
  #enqueue(
    message: Pick<StoredMessage, 'eventId' | 'body' | 'attributes' | 'groupId'> | OutgoingMessage,
    now: number,
    visibleAt: number,
  ): string {
    const seq = this.#seq++;
    const messageId = `${this.#instance}-${seq}`;
    this.#messages.set(messageId, {
      seq,
      messageId,
      eventId: message.eventId,
      dedupeKey: 'dedupeKey' in message ? message.dedupeKey : undefined,
      body: message.body,
      attributes: { ...message.attributes },
      groupId: message.groupId,
      enqueuedAt: now,
      visibleAt,
      takenAt: 0,
      receiveCount: 0,
      receipt: undefined,
    });
    return messageId;
  }

  /** What a provider with these limits would refuse: the Queue should never send it. */
  #refusal(message: OutgoingMessage): QueueError | undefined {
    if (message.delaySeconds > this.capabilities.delay.nativeMaxSeconds)
      return this.#tooLong(message.delaySeconds);
    const attributes = Object.entries(message.attributes);
    if (attributes.length > PROVIDER_ATTRIBUTES) {
      return new QueueError(
        'INVALID_ARGUMENT',
        `${this.name} carries at most ${PROVIDER_ATTRIBUTES} attributes`,
      );
    }
    let attributeBytes = 0;
    for (const [name, value] of attributes)
      attributeBytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
    const maxAttributeBytes = this.capabilities.maxAttributeBytes;
    // The manifest's figure is the application's share; queueport's own attributes come on top.
    if (maxAttributeBytes !== undefined && attributeBytes > maxAttributeBytes + RESERVED_ATTRIBUTE_BYTES) {
      return new QueueError(
        'PAYLOAD_TOO_LARGE',
        `${this.name} carries at most ${maxAttributeBytes} attribute bytes`,
      );
    }
    const size = Buffer.byteLength(message.body, 'utf8') + attributeBytes;
    if (size > this.capabilities.maxBodyBytes) {
      return new QueueError(
        'PAYLOAD_TOO_LARGE',
        `${this.name} holds at most ${this.capabilities.maxBodyBytes} bytes`,
      );
    }
    return undefined;
  }

  #tooLong(delaySeconds: number): QueueError {
    return new QueueError(
      'DELAY_OUT_OF_RANGE',
      `${this.name} holds a delay of at most ${this.capabilities.delay.nativeMaxSeconds} s natively; got ${delaySeconds}`,
    );
  }

  /** One outcome per entry, as a provider's batch call answers; wakes long polls once. */
  #settle<E>(entries: readonly E[], apply: (entry: E) => void): SettleOutcome[] {
    this.#assertExists();
    const outcomes = entries.map((entry): SettleOutcome => {
      try {
        apply(entry);
        return { ok: true };
      } catch (error) {
        if (error instanceof QueueError) return { ok: false, error };
        throw error;
      }
    });
    this.#notify();
    return outcomes;
  }

  #bury(message: StoredMessage, reason: string): void {
    this.#deadLetters.push({
      messageId: message.messageId,
      eventId: message.eventId,
      body: message.body,
      attributes: message.attributes,
      groupId: message.groupId,
      receiveCount: message.receiveCount,
      reason,
      at: this.#clock.now(),
    });
    this.#remove(message);
  }

  #remove(message: StoredMessage): void {
    if (message.receipt) this.#byReceipt.delete(message.receipt);
    this.#messages.delete(message.messageId);
    if (message.dedupeKey !== undefined) this.#dedupe.forget(message.dedupeKey, message.messageId);
  }

  #expire(now: number): void {
    const cutoff = now - this.capabilities.retentionSeconds * 1000;
    // Insertion order is enqueue order, so the expired messages are all at the front.
    for (const message of this.#messages.values()) {
      if (message.enqueuedAt > cutoff) break;
      this.#remove(message);
    }
  }

  #nextVisibleAt(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const message of this.#messages.values()) {
      if (message.visibleAt > now && message.visibleAt < next) next = message.visibleAt;
    }
    return next;
  }

  #notify(): void {
    this.#wake.resolve();
    this.#wake = deferred();
  }

  #assertExists(): void {
    if (this.#deleted) throw new QueueError('NOT_FOUND', `${this.name} was deleted`);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
