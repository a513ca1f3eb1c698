import type { Capabilities } from '../capabilities';
import type { ErrorClassifier, QueueError } from '../errors';

/** One message as the Queue hands it to a driver: already validated, encoded and measured. */
export interface OutgoingMessage {
  /** The envelope's event id; drivers with native dedupe derive their dedupe key from it. */
  eventId: string;
  /** The encoded envelope (canonical JSON). Drivers store and return it byte for byte. */
  body: string;
  attributes: Readonly<Record<string, string>>;
  /** Present only when the application asked for per-group ordering. */
  groupId?: string;
  /** Validated against the manifest; whole seconds unless the driver declares fractional delays. */
  delaySeconds: number;
}

export type PublishOutcome =
  /** `duplicate` is true when the provider said it absorbed a repeat; undefined when it cannot tell. */
  { ok: true; messageId: string; duplicate?: boolean } | { ok: false; error: QueueError };

export interface ReceiveRequest {
  /** At most the manifest's batchMax. */
  maxMessages: number;
  leaseSeconds: number;
  /** Long-poll: wait up to this long for a first message. 0 returns at once. */
  waitSeconds: number;
  signal?: AbortSignal;
}

export interface DriverMessage {
  /** Identifies this delivery (this lease); stale after the lease is lost. */
  receipt: string;
  /** The provider's id for the stored message; stable across redeliveries. */
  messageId: string;
  body: string;
  attributes: Record<string, string>;
  /** 1 on first delivery. 0 when the driver's manifest says it cannot count. */
  receiveCount: number;
  groupId?: string;
}

/**
 * The provider-specific minimum, in the spirit of Go CDK's driver packages. Everything that is
 * the same for every provider (validation, encoding, error taxonomy, retries) lives in Queue,
 * so a driver never re-checks sizes or delays and never retries on its own.
 */
export interface Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  /** At most `capabilities.batchMax` messages; one outcome per message, in order. */
  publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]>;
  receive(request: ReceiveRequest): Promise<DriverMessage[]>;
  /** Deletes the message. A receipt whose lease was lost throws LEASE_LOST. */
  ack(receipt: string): Promise<void>;
  /** Gives the message back, visible again after `delaySeconds`. */
  release(receipt: string, delaySeconds: number): Promise<void>;
  /** Present only when `capabilities.leaseExtension`. */
  extendLease?(receipt: string, leaseSeconds: number): Promise<void>;
  /** Present only when `capabilities.deadLetter`. */
  deadLetter?(receipt: string, reason: string): Promise<void>;
  /** Maps the provider's own failures onto the taxonomy; unknown ones fall through. */
  classifyError?: ErrorClassifier;
  close(): Promise<void>;
}
