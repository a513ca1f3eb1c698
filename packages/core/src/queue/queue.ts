import {
  assertCapabilities,
  type Capabilities,
  effectiveCapabilities,
  type PortableLimits,
} from '../capabilities';
import { type Clock, systemClock } from '../clock';
import { type ConsumeOptions, Consumer, type Handler } from '../consumer/consumer';
import type { Driver, DriverMessage, OutgoingMessage, PublishOutcome } from '../driver';
import {
  decodeEnvelope,
  type Envelope,
  type EnvelopeInput,
  encodeEnvelope,
  prepareEnvelope,
} from '../envelope';
import { normalizeError, QueueError } from '../errors';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from '../retry';
import type { Delivery } from './delivery';
import {
  checkAttributes,
  checkDelay,
  checkGroupId,
  checkLeaseSeconds,
  checkSize,
  messageSizeBytes,
} from './message-checks';

export interface PublishInput {
  envelope: EnvelopeInput;
  attributes?: Record<string, string>;
  /** Per-group ordering key; only for drivers whose manifest declares `fifo-per-group`. */
  groupId?: string;
  /** Seconds before the message becomes visible; 0 by default. */
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
  maxMessages?: number;
  leaseSeconds?: number;
  waitSeconds?: number;
  signal?: AbortSignal;
}

export interface QueueHooks {
  /** A retryable driver failure is about to be retried. */
  onRetry?(info: { operation: string; attempt: number; delayMs: number; error: QueueError }): void;
  /** A received body was not a valid envelope; it is dead-lettered where the driver can, else left to expire. */
  onInvalidMessage?(info: { messageId: string; receiveCount: number; error: QueueError }): void;
}

export interface QueueOptions {
  retry?: Partial<RetryPolicy>;
  /** Narrow the portable limits further; they can never be widened past the driver's manifest. */
  limits?: PortableLimits;
  /** The clock for leases and consumer timing; retries of network calls always use real time. */
  clock?: Clock;
  hooks?: QueueHooks;
  /** Lease used by `receive` when none is given. */
  defaultLeaseSeconds?: number;
}

interface Prepared {
  envelope: Envelope;
  outgoing: OutgoingMessage;
  sizeBytes: number;
}

/**
 * The portable queue: the only type an application touches. It owns everything that is the same
 * for every provider (validation against the manifest, envelope encoding, the error taxonomy,
 * retries) so a driver stays a thin translation of five calls.
 */
export class Queue {
  readonly driver: Driver;
  readonly capabilities: Capabilities;
  readonly clock: Clock;
  readonly #retry: RetryPolicy;
  readonly #hooks: QueueHooks;
  readonly #defaultLease: number;
  readonly #consumers = new Set<Consumer>();
  #closed = false;

  constructor(driver: Driver, options: QueueOptions = {}) {
    assertCapabilities(driver.capabilities, driver.name);
    this.driver = driver;
    this.capabilities = effectiveCapabilities(driver.capabilities, options.limits);
    this.clock = options.clock ?? systemClock;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#hooks = options.hooks ?? {};
    this.#defaultLease = options.defaultLeaseSeconds ?? Math.min(30, this.capabilities.leaseSeconds.max);
    checkLeaseSeconds(this.#defaultLease, this.capabilities);
  }

  get name(): string {
    return this.driver.name;
  }

  async publish(input: PublishInput): Promise<PublishReceipt> {
    const [receipt] = await this.publishBatch([input]);
    return receipt!;
  }

  /**
   * Validates every message before sending any, so a rejected batch enqueues nothing. Sends in
   * chunks of the driver's batchMax; entries that fail retryably are retried on their own.
   */
  async publishBatch(inputs: readonly PublishInput[]): Promise<PublishReceipt[]> {
    this.#assertOpen();
    if (!Array.isArray(inputs)) throw new QueueError('INVALID_ARGUMENT', 'publishBatch takes an array');
    const prepared = inputs.map((input) => this.#prepare(input));
    const receipts: PublishReceipt[] = [];
    for (let start = 0; start < prepared.length; start += this.capabilities.batchMax) {
      const chunk = prepared.slice(start, start + this.capabilities.batchMax);
      receipts.push(...(await this.#publishChunk(chunk)));
    }
    return receipts;
  }

  async receive(options: ReceiveOptions = {}): Promise<Delivery[]> {
    this.#assertOpen();
    const maxMessages = options.maxMessages ?? 1;
    if (!Number.isInteger(maxMessages) || maxMessages < 1 || maxMessages > this.capabilities.batchMax) {
      throw new QueueError('INVALID_ARGUMENT', `maxMessages must be 1 to ${this.capabilities.batchMax}`);
    }
    const leaseSeconds = checkLeaseSeconds(options.leaseSeconds ?? this.#defaultLease, this.capabilities);
    const waitSeconds = options.waitSeconds ?? 0;
    if (!(waitSeconds >= 0 && waitSeconds <= 20)) {
      throw new QueueError('INVALID_ARGUMENT', 'waitSeconds must be from 0 to 20');
    }
    const messages = await this.#call('receive', options.signal, () =>
      this.driver.receive({
        maxMessages,
        leaseSeconds,
        waitSeconds,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    const deliveries: Delivery[] = [];
    for (const message of messages) {
      const delivery = await this.#toDelivery(message);
      if (delivery) deliveries.push(delivery);
    }
    return deliveries;
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
    await this.driver.close();
  }

  #prepare(input: PublishInput): Prepared {
    if (input === null || typeof input !== 'object') {
      throw new QueueError(
        'INVALID_ARGUMENT',
        'each publish takes { envelope, attributes?, groupId?, delaySeconds? }',
      );
    }
    const envelope = prepareEnvelope(input.envelope);
    const body = encodeEnvelope(envelope);
    const attributes = checkAttributes(input.attributes);
    const sizeBytes = messageSizeBytes(body, attributes);
    checkSize(sizeBytes, this.capabilities, envelope.event_id);
    const delaySeconds = checkDelay(input.delaySeconds ?? 0, this.capabilities);
    const groupId = checkGroupId(input.groupId, this.capabilities, this.driver.name);
    const outgoing: OutgoingMessage = {
      eventId: envelope.event_id,
      body,
      attributes,
      delaySeconds,
      ...(groupId === undefined ? {} : { groupId }),
    };
    return { envelope, outgoing, sizeBytes };
  }

  async #publishChunk(chunk: Prepared[]): Promise<PublishReceipt[]> {
    const results = new Array<PublishReceipt | undefined>(chunk.length);
    let pending = chunk.map((_, index) => index);
    await withRetry(
      async () => {
        const outcomes: PublishOutcome[] = await this.driver.publish(pending.map((i) => chunk[i]!.outgoing));
        if (outcomes.length !== pending.length) {
          throw new QueueError(
            'INTERNAL',
            `${this.driver.name}: publish returned ${outcomes.length} outcomes for ${pending.length} messages`,
          );
        }
        const failed: number[] = [];
        let firstError: QueueError | undefined;
        outcomes.forEach((outcome, position) => {
          const index = pending[position]!;
          const prepared = chunk[index]!;
          if (outcome.ok) {
            results[index] = {
              eventId: prepared.envelope.event_id,
              messageId: outcome.messageId,
              duplicate: outcome.duplicate === true,
              sizeBytes: prepared.sizeBytes,
            };
          } else {
            failed.push(index);
            // A non-retryable entry error wins, so the caller sees why it will never succeed.
            if (!firstError || (firstError.retryable && !outcome.error.retryable)) firstError = outcome.error;
          }
        });
        pending = failed;
        if (firstError) throw firstError;
      },
      (error) => normalizeError(error, this.driver.name, this.driver.classifyError),
      this.#retry,
      { onRetry: (info) => this.#hooks.onRetry?.({ operation: 'publish', ...info }) },
    );
    return results as PublishReceipt[];
  }

  async #toDelivery(message: DriverMessage): Promise<Delivery | undefined> {
    let envelope: Envelope;
    try {
      envelope = decodeEnvelope(message.body);
    } catch (raw) {
      const error = normalizeError(raw, this.driver.name);
      this.#hooks.onInvalidMessage?.({
        messageId: message.messageId,
        receiveCount: message.receiveCount,
        error,
      });
      if (this.driver.deadLetter) {
        await this.#call('deadLetter', undefined, () =>
          this.driver.deadLetter!(message.receipt, error.message),
        );
      }
      return undefined;
    }
    const { receipt } = message;
    let settled = false;
    const settle = async (operation: string, run: () => Promise<void>): Promise<void> => {
      await this.#call(operation, undefined, run);
      settled = true;
    };
    return {
      envelope,
      attributes: message.attributes,
      receiveCount: message.receiveCount,
      messageId: message.messageId,
      receipt,
      ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
      get settled() {
        return settled;
      },
      ack: () => settle('ack', () => this.driver.ack(receipt)),
      release: async (options = {}) => {
        const delay = checkDelay(options.delaySeconds ?? 0, this.capabilities, 'release delay');
        return settle('release', () => this.driver.release(receipt, delay));
      },
      extendLease: async (leaseSeconds) => {
        const extend = this.driver.extendLease;
        if (!this.capabilities.leaseExtension || !extend) {
          throw new QueueError('INVALID_ARGUMENT', `${this.driver.name} cannot extend leases`);
        }
        const seconds = checkLeaseSeconds(leaseSeconds, this.capabilities);
        return this.#call('extendLease', undefined, () => extend.call(this.driver, receipt, seconds));
      },
      deadLetter: async (reason) => {
        const deadLetter = this.driver.deadLetter;
        if (!this.capabilities.deadLetter || !deadLetter) {
          throw new QueueError('INVALID_ARGUMENT', `${this.driver.name} has no dead-letter destination`);
        }
        return settle('deadLetter', () => deadLetter.call(this.driver, receipt, reason));
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
}
