import type { Message } from '@aws-sdk/client-sqs';

interface Held {
  message: Message;
  expiresAt: number;
}

/** Sweep only when this many are held: most leases end in a settle, which forgets its own. */
const SWEEP_AT = 1024;

/**
 * What the driver handed out and has not settled, by receipt. SQS cannot move a message to the
 * dead letters, so a dead-letter move re-sends the body and attributes kept here, then deletes.
 * Leases that lapse without a settle are forgotten once they are past their end.
 */
export class HeldMessages {
  readonly #held = new Map<string, Held>();

  hold(receipt: string, message: Message, leaseSeconds: number, now = Date.now()): void {
    if (this.#held.size >= SWEEP_AT) this.#sweep(now);
    this.#held.set(receipt, { message, expiresAt: now + leaseSeconds * 1000 });
  }

  extend(receipt: string, leaseSeconds: number, now = Date.now()): void {
    const held = this.#held.get(receipt);
    if (held) held.expiresAt = now + leaseSeconds * 1000;
  }

  get(receipt: string): Message | undefined {
    return this.#held.get(receipt)?.message;
  }

  forget(receipt: string): void {
    this.#held.delete(receipt);
  }

  get size(): number {
    return this.#held.size;
  }

  #sweep(now: number): void {
    for (const [receipt, held] of this.#held) if (held.expiresAt <= now) this.#held.delete(receipt);
  }
}
