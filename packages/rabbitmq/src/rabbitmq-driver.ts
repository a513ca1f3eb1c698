import { randomUUID } from 'node:crypto';
import type * as port from '@queueport/core/driver';
import * as core from '@queueport/core/driver';
import type { Message } from 'amqplib';
import { classifyRabbitmqError } from './classify-error';
import type { Link } from './connection';
import { type Lease, LeaseTable } from './leases';
import * as wire from './messages';

export const RABBITMQ_BATCH = 10;
/** The broker's consumer_timeout (30 min by default) closes a channel holding a delivery longer, and every lease on it: 5 min short of it. */
export const MAX_HOLD_SECONDS = 1500;

export interface RabbitmqDriverOptions {
  queueName: string;
  /** The connection_name its connections carry, to be found in `rabbitmqctl list_connections`. */
  connectionName: string;
  /** The queue's redrive (its URL's maxReceives); undefined where it has none. */
  maxReceives: number | undefined;
  /** The current link, or a fresh one where it was lost. */
  link(): Promise<Link>;
  closeLink(): Promise<void>;
  timeoutMs: number;
}

const LEASE_LOST: port.SettleOutcome = {
  ok: false,
  error: new core.QueueError(
    'LEASE_LOST',
    'the lease was lost (it ran out, was settled, or its connection dropped)',
  ),
};
const OK: port.SettleOutcome = { ok: true };
type Taken = { link: Link; message: Message };

/**
 * A RabbitMQ quorum queue. A receive takes with basic.get, and a long poll waits with a
 * one-message consumer, so the broker never pushes what no receive asked for (a delivery given
 * back would count as a receive). Leases live in a LeaseTable; the broker holds them unacked.
 */
export class RabbitmqDriver implements port.Driver {
  readonly name: string;
  readonly capabilities: port.Capabilities;
  /** A reconnect, then the call. */
  readonly callTimeoutMs: number;
  readonly classifyError = classifyRabbitmqError;
  readonly connectionName: string;
  readonly #o: RabbitmqDriverOptions;
  readonly #leases = new LeaseTable();
  readonly #abandoned = new core.AbandonedTakes();

  constructor(options: RabbitmqDriverOptions) {
    this.#o = options;
    this.name = `rabbitmq:${options.queueName}`;
    this.connectionName = options.connectionName;
    this.callTimeoutMs = 2 * options.timeoutMs;
    const most = RABBITMQ_BATCH;
    this.capabilities = {
      maxBodyBytes: core.MAX_BODY_BYTES,
      maxAttributeBytes: wire.MAX_ATTRIBUTE_BYTES - core.RESERVED_ATTRIBUTE_BYTES,
      // A queue per delay (see delayQueueOptions): exact, with no bridge.
      delay: {
        maxSeconds: core.MAX_DELAY_SECONDS,
        nativeMaxSeconds: core.MAX_DELAY_SECONDS,
        fractional: false,
      },
      // Repeats are the ledger's to absorb; releases requeue and delayed copies re-enter at the back.
      ...{ dedupe: { kind: 'none' }, ordering: 'none', leaseExtension: true, receiveCount: true },
      ...{
        leaseSeconds: { min: 1, max: MAX_HOLD_SECONDS },
        maxHoldSeconds: MAX_HOLD_SECONDS,
        longPollMaxSeconds: 20,
      },
      // A quorum queue keeps a message until it is settled.
      retentionSeconds: core.MAX_RETENTION_SECONDS,
      ...{ batch: { publish: most, receive: most, settle: most }, staleReceipt: 'rejected' },
      deadLetter: { move: true, redriveAfterReceives: options.maxReceives ?? null },
    };
  }

  async publish(messages: readonly port.OutgoingMessage[]): Promise<port.PublishOutcome[]> {
    const link = await this.#o.link();
    return Promise.all(
      messages.map(async ({ body, attributes, delaySeconds }): Promise<port.PublishOutcome> => {
        const bytes = wire.attributeBytes(attributes);
        // Here as well as in the Queue: a header past a frame would close the whole connection.
        if (bytes > wire.MAX_ATTRIBUTE_BYTES) {
          const details = {
            field: 'attributes',
            attributeBytes: bytes,
            maxAttributeBytes: wire.MAX_ATTRIBUTE_BYTES,
          };
          return {
            ok: false,
            error: new core.QueueError('PAYLOAD_TOO_LARGE', `${this.name}: attributes too large`, {
              details,
            }),
          };
        }
        const messageId = randomUUID();
        await this.#send(
          link,
          { messageId, body, attributes: { ...attributes }, receivesBefore: 0 },
          delaySeconds,
        );
        return { ok: true, messageId };
      }),
    );
  }

  async receive(request: port.ReceiveRequest): Promise<port.DriverMessage[]> {
    // The abort rule, even while a link opens: answer now; what the take still gets goes back.
    const taking = this.#o
      .link()
      .then(async (link) => (await this.#take(link, request)).map((message) => ({ link, message })));
    const taken = await this.#abandoned.unlessAborted(taking, request.signal, (held) => this.#giveBack(held));
    return (taken ?? []).map(({ link, message }) => {
      if (!link.alive)
        throw new core.QueueError('UNAVAILABLE', `${this.name}: the connection dropped during a receive`);
      const { messageId, body, attributes, receiveCount } = wire.readMessage(message);
      const receipt = this.#leases.take(link, message, receiveCount, request.leaseSeconds);
      return { receipt, messageId, body, attributes, receiveCount };
    });
  }

  async ack(receipts: readonly string[]): Promise<port.SettleOutcome[]> {
    return receipts.map((receipt) => {
      const lease = this.#leases.settle(receipt);
      lease?.link.consumer.ack(lease.message);
      return lease ? OK : LEASE_LOST;
    });
  }

  release(entries: readonly port.ReleaseEntry[]): Promise<port.SettleOutcome[]> {
    return this.#settleEach(entries, async (lease, { delaySeconds }) => {
      // The quorum queue counts this return itself; a delayed copy carries the count instead.
      if (delaySeconds === 0) lease.link.consumer.nack(lease.message, false, true);
      else await this.#moveCopy(lease, (stored) => this.#send(lease.link, stored, delaySeconds));
    });
  }

  async extendLease(entries: readonly port.ExtendEntry[]): Promise<port.SettleOutcome[]> {
    return entries.map(({ receipt, leaseSeconds }) => {
      const lease = this.#leases.find(receipt);
      if (!lease) return LEASE_LOST;
      // The Queue refuses an extension past maxHoldSeconds before it gets here.
      this.#leases.extend(receipt, lease, leaseSeconds);
      return OK;
    });
  }

  deadLetter(entries: readonly port.DeadLetterEntry[]): Promise<port.SettleOutcome[]> {
    const queue = wire.deadLetterQueueOf(this.#o.queueName);
    return this.#settleEach(entries, (lease, { reason }) =>
      this.#moveCopy(lease, (stored) =>
        lease.link.send(queue, { ...stored, deadLetter: { reason, at: Date.now() } }),
      ),
    );
  }

  async close(): Promise<void> {
    await this.#abandoned.drained();
    // Closing the connection gives every unacked delivery back to the queue.
    await this.#o.closeLink();
  }

  /** To the queue, or to its delay's queue, redeclared so that it outlives this message. */
  async #send(link: Link, stored: wire.Stored, delaySeconds: number): Promise<void> {
    if (delaySeconds === 0) return link.send(this.#o.queueName, stored);
    const queue = wire.delayQueueOf(this.#o.queueName, delaySeconds);
    await link.publisher.assertQueue(queue, wire.delayQueueOptions(this.#o.queueName, delaySeconds));
    return link.send(queue, stored);
  }

  /** What is ready, a basic.get each; where none was, the first to arrive within the wait, then what is ready. */
  async #take(link: Link, request: port.ReceiveRequest): Promise<Message[]> {
    const { queueName, maxReceives = Number.POSITIVE_INFINITY } = this.#o;
    const deadline = performance.now() + request.waitSeconds * 1000;
    const taken: Message[] = [];
    while (taken.length < request.maxMessages && !request.signal?.aborted) {
      const left = deadline - performance.now();
      const message =
        (await link.consumer.get(queueName, { noAck: false })) ||
        (taken.length === 0 && left > 0 ? await this.#next(link, left, request.signal) : undefined);
      if (!message) break;
      const { receiveCount } = wire.readMessage(message);
      // Past the redrive: moved on the way, with its count, never handed out.
      if (receiveCount <= maxReceives) taken.push(message);
      else
        await this.#moveCopy({ link, message, receiveCount }, (stored) => this.#deadLetterCopy(link, stored));
    }
    return taken;
  }

  #deadLetterCopy(link: Link, stored: wire.Stored): Promise<void> {
    const deadLetter = { reason: `received ${stored.receivesBefore} times`, at: Date.now() };
    return link.send(wire.deadLetterQueueOf(this.#o.queueName), { ...stored, deadLetter });
  }

  /** The first delivery to a one-message consumer, or undefined once the wait ends. */
  async #next(link: Link, ms: number, signal: AbortSignal | undefined): Promise<Message | undefined> {
    let got: Message | undefined;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, ms);
    signal?.addEventListener('abort', wake, { once: true });
    link.lost.then(wake);
    try {
      const { consumerTag } = await link.consumer.consume(this.#o.queueName, (message) => {
        got ??= message ?? undefined;
        wake();
      });
      await woken;
      // Nothing comes after cancel-ok: a delivery that raced the end is in `got`.
      await link.consumer.cancel(consumerTag);
      return got;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
    }
  }

  /** An abandoned receive's deliveries: nobody saw them, so they go back as copies keeping their count. */
  async #giveBack(held: readonly Taken[]): Promise<void> {
    for (const { link, message } of held) {
      const { receiveCount } = wire.readMessage(message);
      await this.#moveCopy({ link, message, receiveCount: receiveCount - 1 }, (stored) =>
        link.send(this.#o.queueName, stored),
      );
    }
  }

  /** A copy (counting the receives so far) is confirmed before the delivery is acked; refused, it goes back now. */
  async #moveCopy(lease: Lease, publish: (stored: wire.Stored) => Promise<void>) {
    const { link, message, receiveCount } = lease;
    try {
      await publish({ ...wire.readMessage(message), receivesBefore: receiveCount });
    } catch (error) {
      if (link.alive) link.consumer.nack(message, false, true);
      throw error;
    }
    if (link.alive) link.consumer.ack(message);
  }

  /** Each entry on its own: a stale or repeated receipt is LEASE_LOST, a failed one its error. */
  #settleEach<E extends { receipt: string }>(
    entries: readonly E[],
    settle: (lease: Lease, entry: E) => Promise<void>,
  ) {
    return Promise.all(
      entries.map(async (entry): Promise<port.SettleOutcome> => {
        const lease = this.#leases.settle(entry.receipt);
        if (!lease) return LEASE_LOST;
        return settle(lease, entry).then(
          () => OK,
          (error: unknown) => ({
            ok: false,
            error: core.normalizeError(error, this.name, classifyRabbitmqError),
          }),
        );
      }),
    );
  }
}
