/**
 * What a driver promises. Read by the portable Queue (validation, batching, the delay bridge),
 * by the conformance suite (which properties apply, and how) and by the docs. A driver declares
 * what it can keep, never more.
 */

/**
 * `reportsDuplicates` (false when absent): whether the provider's answer to a publish says that
 * it absorbed a repeat (BullMQ's does; SQS's and Infrai's never do). Where it is false, a
 * publish receipt's `duplicate` is always false, and means "not known", not "first publish";
 * portable code reads `duplicate` only where this is true. A driver whose provider answers
 * repeats declares it; one that never does leaves it out. A `none` dedupe absorbs nothing, so
 * it reports nothing.
 */
export type DedupeCapability =
  /** A repeated dedupe key is absorbed for this long after the first publish, acked or not. */
  | { kind: 'window'; windowSeconds: number; reportsDuplicates?: boolean }
  /** A repeated dedupe key is absorbed while the first message still exists in the queue. */
  | { kind: 'while-retained'; reportsDuplicates?: boolean }
  | { kind: 'none'; reportsDuplicates?: false };

export type OrderingCapability =
  /** Messages sharing a group id are delivered in publish order; a group waits while one is leased. */
  | 'fifo-per-group'
  /** Publish order holds for one consumer taking one message at a time. */
  | 'fifo-single-consumer'
  | 'none';

export interface DelayCapability {
  /** The longest delay the Queue accepts through this driver. */
  maxSeconds: number;
  /**
   * The longest delay the provider holds natively (SQS: 900 s). Past it the portable Queue
   * bridges the delay by re-sending hop by hop; the driver never does.
   */
  nativeMaxSeconds: number;
  /** Whether delays may have a fractional part (milliseconds) rather than whole seconds. */
  fractional: boolean;
}

/** Most entries one call may carry, per operation: providers differ (SQS 10 everywhere, BullMQ's getNextJob 1). */
export interface BatchLimits {
  publish: number;
  receive: number;
  /** ack, release, lease extension and dead-lettering. */
  settle: number;
  /**
   * Most bytes one publish call may carry, its messages together, where the provider bounds a
   * call's total as well as its count; absent, only `publish` bounds it. Each message counts as
   * `maxBodyBytes` counts it (encoded envelope plus attribute names and values, in UTF-8), so
   * a provider that counts more per message (SQS adds each attribute's data type, and its
   * driver a FIFO attribute) declares its call limit less that much for a full batch. The
   * Queue chunks by both; a message larger than this on its own goes in a call of its own.
   */
  publishBytes?: number;
}

/**
 * What settling with a receipt whose lease was lost (the message since redelivered) does.
 * `rejected`: the provider refuses with LEASE_LOST and changes nothing (memory, BullMQ locks).
 * `ignored`: the provider cannot tell (SQS deletes with a stale handle and says success), so the
 * Queue refuses, itself, every settle it knows to be past the lease it granted.
 */
export type StaleReceiptBehavior = 'rejected' | 'ignored';

export interface DeadLetterCapability {
  /** The driver can move one message to the dead letters now (`Driver.deadLetter`). */
  move: boolean;
  /**
   * The provider moves a message on its own once it was received this many times (SQS's
   * redrive policy, the memory driver's `maxReceives`); null when it never does. A consumer's
   * `retry.maxAttempts` may not exceed it, or the provider would take the message first.
   */
  redriveAfterReceives: number | null;
}

export interface Capabilities {
  /** Largest encoded envelope plus attributes, in bytes. */
  maxBodyBytes: number;
  /**
   * Most bytes of a message's attribute names and values together (UTF-8), where the provider
   * bounds them apart from the body (RabbitMQ carries them in a header, which must fit one
   * frame: an oversized one closes the whole connection). Declared net of what queueport adds
   * (`RESERVED_ATTRIBUTE_BYTES`: trace context, delay-bridge state) and the driver adds. The Queue
   * refuses a publish past it (PAYLOAD_TOO_LARGE, `details.field: 'attributes'`) before
   * sending anything. Absent, attributes count only towards `maxBodyBytes`.
   */
  maxAttributeBytes?: number;
  delay: DelayCapability;
  dedupe: DedupeCapability;
  ordering: OrderingCapability;
  /** Whether a lease can be extended while a handler runs. */
  leaseExtension: boolean;
  /** Allowed lease lengths for receive and extension, in seconds. */
  leaseSeconds: { min: number; max: number };
  /**
   * Longest one receive may hold a message, its extensions together, counted from the receive
   * (SQS: 12 hours; RabbitMQ: the broker's `consumer_timeout`, past which it closes the channel
   * and every lease on it). Absent where extensions may go on for ever. The Queue refuses an
   * extension that would end past it (INVALID_ARGUMENT, `details.reason: 'max-hold'`), so a
   * consumer's handler learns that its lease ends instead of the provider ending it unannounced.
   */
  maxHoldSeconds?: number;
  /** Longest a receive may wait for a first message (long poll); 0 when the provider cannot wait. */
  longPollMaxSeconds: number;
  /** Whether a delivery reports how many times it was received. */
  receiveCount: boolean;
  /** How long an unacknowledged message is kept. */
  retentionSeconds: number;
  batch: BatchLimits;
  staleReceipt: StaleReceiptBehavior;
  deadLetter: DeadLetterCapability;
}
