import type { DriverMessage } from '../driver';
import type { Envelope } from '../envelope';
import { QueueError } from '../errors';
import { TRACE_CONTEXT_ATTRIBUTE, takeTraceContext } from '../telemetry/trace-context';
import type { Delivery } from './delivery';

export type Settlement = 'acked' | 'released' | 'dead-lettered';

/** What a delivery asks of the Queue that made it: the Queue owns every call to the driver. */
export interface DeliverySettler {
  ackOne(delivery: ReceivedDelivery): Promise<void>;
  releaseOne(delivery: ReceivedDelivery, delaySeconds: number | undefined): Promise<void>;
  extendOne(delivery: ReceivedDelivery, leaseSeconds: number): Promise<void>;
  deadLetterOne(delivery: ReceivedDelivery, reason: string): Promise<void>;
}

/** A delivery as the Queue hands it out: a class, so a receive of many costs no closures per message. */
export class ReceivedDelivery implements Delivery {
  readonly envelope: Envelope;
  readonly attributes: Readonly<Record<string, string>>;
  readonly receiveCount: number;
  /** The W3C traceparent its publisher carried (`TRACE_CONTEXT_ATTRIBUTE`), kept out of `attributes`. */
  readonly traceContext: string | undefined;
  readonly message: DriverMessage;
  /** Which Queue made it, so a batch settle can refuse another queue's deliveries. */
  readonly settler: DeliverySettler;
  leaseExpiresAt: number;
  /** Clock time past which no extension may hold it (the manifest's `maxHoldSeconds`). */
  holdEndsAt = Number.POSITIVE_INFINITY;
  settled = false;
  /** How it was settled, so a consumer can count what a handler settled itself. */
  settledAs: Settlement | undefined = undefined;

  constructor(
    settler: DeliverySettler,
    message: DriverMessage,
    envelope: Envelope,
    arrival: { attributes: Record<string, string>; receiveCount: number },
    leaseExpiresAt: number,
  ) {
    this.settler = settler;
    this.message = message;
    this.envelope = envelope;
    if (Object.hasOwn(arrival.attributes, TRACE_CONTEXT_ATTRIBUTE)) {
      ({ attributes: this.attributes, traceContext: this.traceContext } = takeTraceContext(
        arrival.attributes,
      ));
    } else {
      this.attributes = arrival.attributes;
      this.traceContext = undefined;
    }
    this.receiveCount = arrival.receiveCount;
    this.leaseExpiresAt = leaseExpiresAt;
  }

  get body(): string {
    return this.message.body;
  }

  get messageId(): string {
    return this.message.messageId;
  }

  get receipt(): string {
    return this.message.receipt;
  }

  get groupId(): string | undefined {
    return this.message.groupId;
  }

  ack(): Promise<void> {
    return this.settler.ackOne(this);
  }

  release(options: { delaySeconds?: number } = {}): Promise<void> {
    if (options === null || typeof options !== 'object') {
      return Promise.reject(
        new QueueError('INVALID_ARGUMENT', 'release takes { delaySeconds? }', {
          details: { field: 'options' },
        }),
      );
    }
    return this.settler.releaseOne(this, options.delaySeconds);
  }

  extendLease(leaseSeconds: number): Promise<void> {
    return this.settler.extendOne(this, leaseSeconds);
  }

  deadLetter(reason: string): Promise<void> {
    return this.settler.deadLetterOne(this, reason);
  }
}
