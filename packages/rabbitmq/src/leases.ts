import { randomUUID } from 'node:crypto';
import type { Message } from 'amqplib';
import type { Link } from './connection';

export interface Lease {
  readonly link: Link;
  readonly message: Message;
  readonly receiveCount: number;
  timer?: NodeJS.Timeout;
}

/**
 * The leases handed out, by receipt; the broker only holds the deliveries unacked. At a lease's
 * end its delivery goes back (nack, requeue). A receipt not here, or of a lost link, is refused
 * without a word to the broker: acking a tag the channel does not hold closes the channel.
 */
export class LeaseTable {
  readonly #leases = new Map<string, Lease>();

  take(link: Link, message: Message, receiveCount: number, leaseSeconds: number): string {
    const receipt = `${link.generation}.${message.fields.deliveryTag}.${randomUUID()}`;
    const lease: Lease = { link, message, receiveCount };
    this.#leases.set(receipt, lease);
    this.extend(receipt, lease, leaseSeconds);
    return receipt;
  }

  find(receipt: string): Lease | undefined {
    const lease = this.#leases.get(receipt);
    return lease?.link.alive ? lease : undefined;
  }

  /** Taken out: its settle is under way, and its end no longer applies. */
  settle(receipt: string): Lease | undefined {
    const lease = this.find(receipt);
    clearTimeout(lease?.timer);
    this.#leases.delete(receipt);
    return lease;
  }

  extend(receipt: string, lease: Lease, leaseSeconds: number): void {
    clearTimeout(lease.timer);
    lease.timer = setTimeout(() => {
      if (this.settle(receipt)) lease.link.consumer.nack(lease.message, false, true);
      // A lost link's leases end here too: the broker has requeued their deliveries already.
      this.#leases.delete(receipt);
    }, leaseSeconds * 1000);
    // A lease never keeps a process alive on its own; its connection does, while open.
    lease.timer.unref();
  }
}
