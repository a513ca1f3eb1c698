import { randomUUID } from 'node:crypto';
import {
  type Capabilities,
  type Clock,
  type DedupeCapability,
  type Driver,
  type DriverMessage,
  FIFO_DEDUPE_WINDOW_SECONDS,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  MAX_RETENTION_SECONDS,
  type OutgoingMessage,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  systemClock,
} from '@queueport/core';
import { DedupeIndex } from './dedupe-index';
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
  retentionSeconds?: number;
  batchMax?: number;
  /** Moves a message to the dead letters instead of delivering it for the (n+1)th time. */
  maxReceives?: number;
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
  #closed = false;
  #wake: { promise: Promise<void>; resolve: () => void } = deferred();

  constructor(options: MemoryDriverOptions = {}) {
    this.name = options.name ?? 'memory';
    this.#clock = options.clock ?? systemClock;
    this.#maxReceives = options.maxReceives;
    const dedupe = options.dedupe ?? { kind: 'window', windowSeconds: FIFO_DEDUPE_WINDOW_SECONDS };
    this.#dedupe = new DedupeIndex(dedupe);
    this.capabilities = {
      maxBodyBytes: MAX_BODY_BYTES,
      delay: {
        maxSeconds: MAX_DELAY_SECONDS,
        nativeMaxSeconds: MAX_DELAY_SECONDS,
        fractional: options.fractionalDelay ?? false,
      },
      dedupe,
      ordering: options.ordering ?? 'fifo-per-group',
      leaseExtension: true,
      leaseSeconds: { min: 0, max: 43_200 },
      receiveCount: true,
      retentionSeconds: options.retentionSeconds ?? MAX_RETENTION_SECONDS,
      batchMax: options.batchMax ?? 10,
      deadLetter: true,
    };
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    this.#assertOpen();
    const now = this.#clock.now();
    this.#expire(now);
    const outcomes = messages.map((message): PublishOutcome => {
      const holder = this.#dedupe.holder(message.eventId, now, (id) => this.#messages.has(id));
      if (holder) return { ok: true, messageId: holder, duplicate: true };
      const seq = this.#seq++;
      const messageId = `${this.#instance}-${seq}`;
      this.#messages.set(messageId, {
        seq,
        messageId,
        eventId: message.eventId,
        body: message.body,
        attributes: { ...message.attributes },
        groupId: message.groupId,
        enqueuedAt: now,
        visibleAt: now + message.delaySeconds * 1000,
        receiveCount: 0,
        receipt: undefined,
      });
      this.#dedupe.remember(message.eventId, messageId, now);
      return { ok: true, messageId, duplicate: false };
    });
    this.#notify();
    return outcomes;
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.#assertOpen();
    const deadline = this.#clock.now() + request.waitSeconds * 1000;
    for (;;) {
      if (request.signal?.aborted || this.#closed) return [];
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

  async ack(receipt: string): Promise<void> {
    const message = this.#leased(receipt, { allowExpired: true });
    this.#remove(message);
    this.#notify();
  }

  async release(receipt: string, delaySeconds: number): Promise<void> {
    const message = this.#leased(receipt, { allowExpired: true });
    this.#byReceipt.delete(receipt);
    message.receipt = undefined;
    message.visibleAt = this.#clock.now() + delaySeconds * 1000;
    this.#notify();
  }

  async extendLease(receipt: string, leaseSeconds: number): Promise<void> {
    const message = this.#leased(receipt, { allowExpired: false });
    message.visibleAt = this.#clock.now() + leaseSeconds * 1000;
  }

  async deadLetter(receipt: string, reason: string): Promise<void> {
    const message = this.#leased(receipt, { allowExpired: true });
    this.#bury(message, reason);
    this.#notify();
  }

  async close(): Promise<void> {
    this.#closed = true;
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
    this.#assertOpen();
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

  #bury(message: StoredMessage, reason: string): void {
    this.#deadLetters.push({
      messageId: message.messageId,
      eventId: message.eventId,
      body: message.body,
      attributes: message.attributes,
      receiveCount: message.receiveCount,
      reason,
      at: this.#clock.now(),
    });
    this.#remove(message);
  }

  #remove(message: StoredMessage): void {
    if (message.receipt) this.#byReceipt.delete(message.receipt);
    this.#messages.delete(message.messageId);
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

  #assertOpen(): void {
    if (this.#closed) throw new QueueError('CLOSED', `${this.name} driver is closed`);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
