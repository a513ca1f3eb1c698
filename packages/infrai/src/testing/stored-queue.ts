import { randomBytes } from 'node:crypto';
import { DAY_MS, DEAD_LETTER_REASONS } from './queue-rules';
import { SimulatorError } from './simulator-error';
import { uuidV7 } from './uuid-v7';

export type QueueType = 'standard' | 'fifo';

export interface QueueSettings {
  name: string;
  type: QueueType;
  /** By name: the dead-letter queue is looked up when used, so deleting it leaves none. */
  deadLetterQueue: string | null;
  maxRetries: number;
  messageRetentionDays: number;
  visibilityTimeoutDefault: number;
  enablePriority: boolean;
  createdAt: number;
}

export interface StoredMessage {
  readonly id: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly priority: number;
  /** When it was first published: retention counts from here, through dead-lettering and redrive. */
  readonly enqueuedAt: number;
  visibleAt: number;
  deliveryCount: number;
  /** The current delivery's handle; an older one is stale. */
  receiptHandle: string | undefined;
  /** Received and not given back (nacked) since: hidden means in flight rather than delayed. */
  leased: boolean;
  deadLetter: { reason: string | null; at: number } | undefined;
}

export interface QueueCounts {
  available: number;
  inFlight: number;
  delayed: number;
  oldestAvailableAgeSeconds: number | null;
}

/**
 * One queue's messages, in the order they arrived in it (a Map keeps that order; a redriven or
 * dead-lettered message arrives at the back). Every rule about a message's life is here.
 * Expiry is lazy: a message past retention is deleted whenever a scan meets it, and every
 * read scans the messages it returns, so none outlives retention as far as a client can see.
 */
export class StoredQueue {
  readonly #messages = new Map<string, StoredMessage>();

  constructor(readonly settings: QueueSettings) {}

  publish(
    payload: Record<string, unknown>,
    delaySeconds: number,
    priority: number,
    now: number,
  ): StoredMessage {
    const message: StoredMessage = {
      id: uuidV7(now),
      payload,
      priority,
      enqueuedAt: now,
      visibleAt: now + delaySeconds * 1000,
      deliveryCount: 0,
      receiptHandle: undefined,
      leased: false,
      deadLetter: undefined,
    };
    this.#messages.set(message.id, message);
    return message;
  }

  /**
   * Up to `max` messages visible now, each hidden for the visibility timeout under a new handle.
   * A FIFO queue hands out messages strictly in arrival order: it stops at the first one that is
   * hidden (in flight, delayed or nacked with a delay) rather than deliver past it. A message
   * that has had its max_retries + 1 deliveries goes to the dead letters instead, when there are
   * any; without a dead-letter queue it is delivered again.
   */
  receive(max: number, visibilityTimeoutSeconds: number, now: number, deadLetters: StoredQueue | undefined) {
    const delivered: StoredMessage[] = [];
    const fifo = this.settings.type === 'fifo';
    for (const message of this.#inDeliveryOrder()) {
      if (delivered.length >= max) break;
      if (!this.#alive(message, now)) continue;
      if (message.visibleAt > now) {
        if (fifo) break;
        continue;
      }
      if (deadLetters && this.#exhausted(message)) {
        this.#deadLetter(message, DEAD_LETTER_REASONS.redelivery, deadLetters, now);
        continue;
      }
      message.deliveryCount += 1;
      message.receiptHandle = `${message.id}.${randomBytes(12).toString('base64url')}`;
      message.visibleAt = now + visibilityTimeoutSeconds * 1000;
      message.leased = true;
      delivered.push(message);
    }
    return delivered;
  }

  ack(receiptHandle: string, now: number): void {
    this.#messages.delete(this.#current(receiptHandle, now).id);
  }

  /** Visible again after the delay, or to the dead letters once it has had max_retries + 1 deliveries. */
  nack(
    receiptHandle: string,
    delaySeconds: number,
    now: number,
    deadLetters: StoredQueue | undefined,
  ): 'requeued' | 'dead-lettered' {
    const message = this.#current(receiptHandle, now);
    if (deadLetters && this.#exhausted(message)) {
      this.#deadLetter(message, DEAD_LETTER_REASONS.nack, deadLetters, now);
      return 'dead-lettered';
    }
    message.visibleAt = now + delaySeconds * 1000;
    message.leased = false;
    return 'requeued';
  }

  counts(now: number): QueueCounts {
    const counts: QueueCounts = { available: 0, inFlight: 0, delayed: 0, oldestAvailableAgeSeconds: null };
    let oldest: number | undefined;
    for (const message of this.#messages.values()) {
      if (!this.#alive(message, now)) continue;
      if (message.visibleAt <= now) {
        counts.available += 1;
        oldest = Math.min(oldest ?? message.enqueuedAt, message.enqueuedAt);
      } else if (message.leased) counts.inFlight += 1;
      else counts.delayed += 1;
    }
    if (oldest !== undefined) counts.oldestAvailableAgeSeconds = (now - oldest) / 1000;
    return counts;
  }

  size(now: number): number {
    const { available, inFlight, delayed } = this.counts(now);
    return available + inFlight + delayed;
  }

  /** The oldest `max` messages, whatever their visibility: a look, not a delivery. */
  peek(max: number, now: number): StoredMessage[] {
    const found: StoredMessage[] = [];
    for (const message of this.#messages.values()) {
      if (found.length >= max) break;
      if (this.#alive(message, now)) found.push(message);
    }
    return found;
  }

  /** Redrive: the oldest `max` messages move to `target`, visible at once, as if never delivered. */
  moveTo(target: StoredQueue, max: number, now: number): number {
    const moving = this.peek(max, now);
    for (const message of moving) {
      this.#messages.delete(message.id);
      message.deliveryCount = 0;
      message.deadLetter = undefined;
      target.#arrive(message, now);
    }
    return moving.length;
  }

  #inDeliveryOrder(): Iterable<StoredMessage> {
    if (this.settings.type === 'fifo' || !this.settings.enablePriority) return this.#messages.values();
    // Array.prototype.sort is stable: equal priorities keep arrival order.
    return [...this.#messages.values()].sort((a, b) => b.priority - a.priority);
  }

  #exhausted(message: StoredMessage): boolean {
    return message.deliveryCount >= this.settings.maxRetries + 1;
  }

  #deadLetter(message: StoredMessage, reason: string, deadLetters: StoredQueue, now: number): void {
    this.#messages.delete(message.id);
    message.deadLetter = { reason, at: now };
    deadLetters.#arrive(message, now);
  }

  #arrive(message: StoredMessage, now: number): void {
    message.visibleAt = now;
    message.receiptHandle = undefined;
    message.leased = false;
    this.#messages.set(message.id, message);
  }

  /** The message a handle names while it is the current one; a lapsed lease nobody took is still current. */
  #current(receiptHandle: string, now: number): StoredMessage {
    const id = receiptHandle.slice(0, receiptHandle.lastIndexOf('.'));
    const message = this.#messages.get(id);
    if (!message || !this.#alive(message, now) || message.receiptHandle !== receiptHandle) {
      throw new SimulatorError(
        'RECEIPT_HANDLE_INVALID',
        'the receipt handle is not the current one for a message in this queue (it was received again, or is gone)',
        { hint: 'receive the message again and settle it with the new receipt_handle' },
      );
    }
    return message;
  }

  #alive(message: StoredMessage, now: number): boolean {
    if (now < message.enqueuedAt + this.settings.messageRetentionDays * DAY_MS) return true;
    this.#messages.delete(message.id);
    return false;
  }
}
