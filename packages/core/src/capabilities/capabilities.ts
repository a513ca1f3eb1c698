/**
 * What a driver promises. Read by the portable Queue (validation), by the conformance suite
 * (which properties apply) and by the docs. A driver declares what it can keep, never more.
 */
export type DedupeCapability =
  /** A repeated event id is absorbed for this long after the first publish, acked or not. */
  | { kind: 'window'; windowSeconds: number }
  /** A repeated event id is absorbed while the first message still exists in the queue. */
  | { kind: 'while-retained' }
  | { kind: 'none' };

export type OrderingCapability =
  /** Messages sharing a group id are delivered in publish order; a group waits while one is leased. */
  | 'fifo-per-group'
  /** Publish order holds for one consumer taking one message at a time. */
  | 'fifo-single-consumer'
  | 'none';

export interface DelayCapability {
  /** The longest delay the Queue accepts through this driver. */
  maxSeconds: number;
  /** The longest delay the provider holds natively; past it the driver bridges (e.g. re-sends). */
  nativeMaxSeconds: number;
  /** Whether delays may have a fractional part (milliseconds) rather than whole seconds. */
  fractional: boolean;
}

export interface Capabilities {
  /** Largest encoded envelope plus attributes, in bytes. */
  maxBodyBytes: number;
  delay: DelayCapability;
  dedupe: DedupeCapability;
  ordering: OrderingCapability;
  /** Whether a lease can be extended while a handler runs. */
  leaseExtension: boolean;
  /** Allowed lease lengths for receive and extension, in seconds. */
  leaseSeconds: { min: number; max: number };
  /** Whether a delivery reports how many times it was received. */
  receiveCount: boolean;
  /** How long an unacknowledged message is kept. */
  retentionSeconds: number;
  /** Most messages in one publish or receive call. */
  batchMax: number;
  /** Whether the provider has a dead-letter destination the driver can move a message to. */
  deadLetter: boolean;
}
