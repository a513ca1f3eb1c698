import { type Clock, systemClock } from '@queueport/core';
import {
  type Capabilities,
  type DeadLetterEntry,
  type Driver,
  type DriverMessage,
  type ExtendEntry,
  type OutgoingMessage,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
} from '@queueport/core/driver';
import { testCapabilities } from './recording-driver';

export interface FakeDriverOptions {
  clock?: Clock;
  /** Longest delay held natively; past it the Queue bridges. The portable 7 days by default. */
  nativeMaxDelaySeconds?: number;
  fractionalDelay?: boolean;
  /** A redrive policy: a message received this many times goes to the dead letters on the next receive. */
  maxReceives?: number;
  /** A 300 s window by default (a repeated key absorbed, acked or not), as FIFO providers keep. */
  dedupe?: { kind: 'window'; windowSeconds: number } | { kind: 'none' };
  /** `fifo-per-group` by default: a group waits while its oldest message is leased or delayed. */
  ordering?: 'fifo-per-group' | 'none';
  /** Anything else the manifest should say. */
  capabilities?: Partial<Capabilities>;
}

interface Stored {
  messageId: string;
  eventId: string;
  body: string;
  attributes: Record<string, string>;
  visibleAt: number;
  receiveCount: number;
  receipt: string | undefined;
  groupId: string | undefined;
}

export interface FakeDeadLetter {
  messageId: string;
  eventId: string;
  body: string;
  receiveCount: number;
  reason: string;
}

/**
 * A small provider in memory for the Queue's own tests (consumer, delay bridge, events): it keeps
 * messages, leases and delays on the given clock, so core is tested without any driver package.
 * A receipt settles its message until the message is received again (then LEASE_LOST); a lease
 * that ran out can still be acked or released, as on SQS, but not extended.
 */
export class FakeDriver implements Driver {
  readonly name = 'fake';
  readonly capabilities: Capabilities;
  readonly #clock: Clock;
  readonly #messages = new Map<string, Stored>();
  readonly #byReceipt = new Map<string, string>();
  readonly #dedupe = new Map<string, { messageId: string; at: number }>();
  readonly #deadLetters: FakeDeadLetter[] = [];
  readonly #maxReceives: number | undefined;
  readonly #dedupeWindowMs: number | undefined;
  #seq = 0;
  #wake = deferred();

  constructor(options: FakeDriverOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxReceives = options.maxReceives;
    const dedupe = options.dedupe ?? { kind: 'window', windowSeconds: 300 };
    this.#dedupeWindowMs = dedupe.kind === 'window' ? dedupe.windowSeconds * 1000 : undefined;
    this.capabilities = testCapabilities({
      delay: {
        maxSeconds: 604_800,
        nativeMaxSeconds: options.nativeMaxDelaySeconds ?? 604_800,
        fractional: options.fractionalDelay ?? false,
      },
      dedupe: dedupe.kind === 'window' ? { ...dedupe, reportsDuplicates: true } : dedupe,
      ordering: options.ordering ?? 'fifo-per-group',
      deadLetter: { move: true, redriveAfterReceives: options.maxReceives ?? null },
      ...options.capabilities,
    });
  }

  /** Messages held, leased or not (not the dead letters). */
  depth(): number {
    return this.#messages.size;
  }

  /** Messages a receive would take now. */
  ready(): number {
    const now = this.#clock.now();
    return [...this.#messages.values()].filter((m) => m.visibleAt <= now).length;
  }

  deadLetters(): readonly FakeDeadLetter[] {
    return this.#deadLetters;
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    const now = this.#clock.now();
    const outcomes = messages.map((message): PublishOutcome => {
      if (message.delaySeconds > this.capabilities.delay.nativeMaxSeconds) {
        return { ok: false, error: new QueueError('DELAY_OUT_OF_RANGE', 'longer than the fake holds') };
      }
      const held = this.#dedupe.get(message.dedupeKey);
      if (held && this.#dedupeWindowMs !== undefined && now - held.at < this.#dedupeWindowMs) {
        return { ok: true, messageId: held.messageId, duplicate: true };
      }
      const messageId = `fake-${this.#seq++}`;
      this.#messages.set(messageId, {
        messageId,
        eventId: message.eventId,
        body: message.body,
        attributes: { ...message.attributes },
        visibleAt: now + message.delaySeconds * 1000,
        receiveCount: 0,
        receipt: undefined,
        groupId: message.groupId,
      });
      if (this.#dedupeWindowMs !== undefined) this.#dedupe.set(message.dedupeKey, { messageId, at: now });
      return { ok: true, messageId, duplicate: false };
    });
    this.#notify();
    return outcomes;
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    const deadline = this.#clock.now() + request.waitSeconds * 1000;
    for (;;) {
      if (request.signal?.aborted) return [];
      const taken = this.#take(request.maxMessages, request.leaseSeconds);
      const now = this.#clock.now();
      if (taken.length > 0 || now >= deadline) return taken;
      const next = Math.min(
        deadline,
        ...[...this.#messages.values()].map((m) => m.visibleAt).filter((t) => t > now),
      );
      const timer = new AbortController();
      const stop = () => timer.abort();
      request.signal?.addEventListener('abort', stop, { once: true });
      await Promise.race([this.#wake.promise, this.#clock.sleep(next - now, timer.signal).catch(() => {})]);
      timer.abort();
      request.signal?.removeEventListener('abort', stop);
    }
  }

  async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(receipts, (receipt) => this.#remove(this.#leased(receipt, true)));
  }

  async release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, delaySeconds }) => {
      const message = this.#leased(receipt, true);
      this.#byReceipt.delete(receipt);
      message.receipt = undefined;
      message.visibleAt = this.#clock.now() + delaySeconds * 1000;
    });
  }

  async extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, leaseSeconds }) => {
      this.#leased(receipt, false).visibleAt = this.#clock.now() + leaseSeconds * 1000;
    });
  }

  async deadLetter(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries, ({ receipt, reason }) => this.#bury(this.#leased(receipt, true), reason));
  }

  async close(): Promise<void> {}

  #take(max: number, leaseSeconds: number): DriverMessage[] {
    const now = this.#clock.now();
    const taken: DriverMessage[] = [];
    const grouped = this.capabilities.ordering === 'fifo-per-group';
    const blocked = new Set<string>();
    // A Map iterates in publish order: a group's oldest message decides for the whole group.
    for (const message of this.#messages.values()) {
      if (taken.length >= max) break;
      const group = grouped ? message.groupId : undefined;
      if (group !== undefined && blocked.has(group)) continue;
      if (group !== undefined) blocked.add(group);
      if (message.visibleAt > now) continue;
      if (this.#maxReceives !== undefined && message.receiveCount >= this.#maxReceives) {
        this.#bury(message, `received ${message.receiveCount} times`);
        if (group !== undefined) blocked.delete(group);
        continue;
      }
      if (message.receipt) this.#byReceipt.delete(message.receipt);
      const receipt = `${message.messageId}/r${message.receiveCount}`;
      message.receipt = receipt;
      message.receiveCount++;
      message.visibleAt = now + leaseSeconds * 1000;
      this.#byReceipt.set(receipt, message.messageId);
      const { messageId, body, attributes, receiveCount, groupId } = message;
      taken.push({
        receipt,
        messageId,
        body,
        attributes: { ...attributes },
        receiveCount,
        ...(groupId === undefined ? {} : { groupId }),
      });
    }
    return taken;
  }

  #leased(receipt: string, allowExpired: boolean): Stored {
    const message = this.#messages.get(this.#byReceipt.get(receipt) ?? '');
    if (
      !message ||
      message.receipt !== receipt ||
      (!allowExpired && message.visibleAt <= this.#clock.now())
    ) {
      throw new QueueError('LEASE_LOST', 'the lease for this delivery was lost');
    }
    return message;
  }

  #bury(message: Stored, reason: string): void {
    const { messageId, eventId, body, receiveCount } = message;
    this.#deadLetters.push({ messageId, eventId, body, receiveCount, reason });
    this.#remove(message);
  }

  #remove(message: Stored): void {
    if (message.receipt) this.#byReceipt.delete(message.receipt);
    this.#messages.delete(message.messageId);
  }

  #settle<T>(entries: readonly T[], apply: (entry: T) => void): SettleOutcome[] {
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

  #notify(): void {
    this.#wake.resolve();
    this.#wake = deferred();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
