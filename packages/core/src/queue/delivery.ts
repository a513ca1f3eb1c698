import type { AnyEvents, EnvelopeOf, EventMap } from '../payloads';

/**
 * One received message. Settle it exactly once: ack, release or deadLetter. On a typed queue,
 * checking `envelope.type` narrows `envelope.payload`.
 */
export interface Delivery<E extends EventMap = AnyEvents> {
  readonly envelope: EnvelopeOf<E>;
  /**
   * The message body exactly as it was read from the queue, which decodes to `envelope` (checked
   * in full, digest included). Forward these bytes rather than encoding `envelope` again.
   */
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** 1 on first delivery, counted across the delay bridge's hops; 0 when the driver cannot count. */
  readonly receiveCount: number;
  /** The provider's message id; for tracing only, the event id is the identity. */
  readonly messageId: string;
  /** This delivery's lease handle; for tracing only. */
  readonly receipt: string;
  readonly groupId?: string;
  /** Epoch ms (Queue clock) when the lease this delivery holds runs out, as far as the Queue knows. */
  readonly leaseExpiresAt: number;
  /**
   * True once ack, release or deadLetter succeeded. A handler that settles its delivery itself
   * (as the webhook worker does) is left alone by the consumer.
   */
  readonly settled: boolean;
  ack(): Promise<void>;
  /** Makes the message visible again after `delaySeconds` (default 0), bridged past the provider's maximum. */
  release(options?: { delaySeconds?: number }): Promise<void>;
  extendLease(leaseSeconds: number): Promise<void>;
  /** Moves the message to the dead letters now; throws when the driver cannot (`deadLetter.move`). */
  deadLetter(reason: string): Promise<void>;
}
