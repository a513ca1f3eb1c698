import type { Capabilities } from '../capabilities';
import type { ErrorClassifier, QueueError } from '../errors';

/** One message as the Queue hands it to a driver: already validated, encoded and measured. */
export interface OutgoingMessage {
  /** The envelope's event id: for tracing and dead-letter listings. */
  eventId: string;
  /**
   * What the provider's dedupe must key on: the event id for a publish, a per-hop key for a
   * re-send of the delay bridge. Drivers whose provider limits key length or alphabet pass it
   * through `deriveProviderKey`, never the raw event id.
   */
  dedupeKey: string;
  /** The encoded envelope (canonical JSON). Drivers store and return it byte for byte. */
  body: string;
  attributes: Readonly<Record<string, string>>;
  /** Present only when the application asked for per-group ordering. */
  groupId?: string;
  /** At most the manifest's `delay.nativeMaxSeconds`; whole seconds unless it declares fractional delays. */
  delaySeconds: number;
}

export type PublishOutcome =
  /**
   * `duplicate` is true when the provider said it absorbed a repeat; undefined when it cannot
   * tell. A driver that can ever answer true declares `dedupe.reportsDuplicates: true`.
   */
  { ok: true; messageId: string; duplicate?: boolean } | { ok: false; error: QueueError };

/** One outcome per settle entry, in order: entries fail on their own, like SQS's batch calls. */
export type SettleOutcome = { ok: true } | { ok: false; error: QueueError };

export interface ReceiveRequest {
  /** At most the manifest's `batch.receive`. */
  maxMessages: number;
  leaseSeconds: number;
  /** Long-poll: wait up to this long (at most `longPollMaxSeconds`) for a first message. 0 returns at once. */
  waitSeconds: number;
  signal?: AbortSignal;
}

export interface DriverMessage {
  /** Identifies this delivery (this lease); stale after the lease is lost. */
  receipt: string;
  /** The provider's id for the stored message; stable across redeliveries. */
  messageId: string;
  body: string;
  /**
   * The body already parsed, where the provider answered it as JSON (Infrai's payload objects):
   * the Queue checks this instead of parsing `body` again. It must be exactly what
   * `JSON.parse(body)` gives, and a fresh object the driver keeps no hold of.
   */
  parsedBody?: unknown;
  attributes: Record<string, string>;
  /** 1 on first delivery. 0 when the driver's manifest says it cannot count. */
  receiveCount: number;
  groupId?: string;
}

export interface ReleaseEntry {
  receipt: string;
  /** At most `delay.nativeMaxSeconds`: the Queue bridges longer ones. */
  delaySeconds: number;
}

export interface ExtendEntry {
  receipt: string;
  leaseSeconds: number;
}

export interface DeadLetterEntry {
  receipt: string;
  reason: string;
}

/**
 * The provider-specific minimum, in the spirit of Go CDK's driver packages. Everything that is
 * the same for every provider (validation, encoding, the error taxonomy, retries, batching to
 * the manifest's limits, long delays) lives in the Queue, so a driver never re-checks sizes or
 * delays, never chunks and never retries on its own.
 *
 * Settling takes batches (at most `batch.settle` entries) and answers one outcome per entry.
 * A stale receipt (its message redelivered since) gets LEASE_LOST where the manifest says
 * `staleReceipt: 'rejected'`; where it says `ignored`, whatever the provider does is accepted.
 *
 * No call reaches a driver after `close()`: the Queue refuses them itself (CLOSED), so a
 * driver keeps no closed flag to refuse one. Before it closes the driver, the Queue aborts the
 * signal of each receive in flight and waits until every call it made has answered or passed
 * its deadline.
 */
export interface Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  /**
   * The deadline, in milliseconds, this driver puts on each of its own provider calls (its
   * client's request timeout), where it has one. The Queue's own bound on a call is never
   * below this plus a second, so the driver's typed timeout error, which says more, comes
   * first; without it the Queue's `callTimeoutMs` alone applies. A positive number.
   */
  readonly callTimeoutMs?: number;
  /** At most `batch.publish` messages; one outcome per message, in order. */
  publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]>;
  receive(request: ReceiveRequest): Promise<DriverMessage[]>;
  /** Deletes the messages. */
  ack(receipts: readonly string[]): Promise<SettleOutcome[]>;
  /** Gives the messages back, each visible again after its delay. */
  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]>;
  /** Present only when `capabilities.leaseExtension`. */
  extendLease?(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]>;
  /** Present only when `capabilities.deadLetter.move`. */
  deadLetter?(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]>;
  /** Maps the provider's own failures onto the taxonomy; unknown ones fall through. */
  classifyError?: ErrorClassifier;
  /**
   * Called once, by the Queue, after every call it made has answered or passed its deadline;
   * none comes after it. Ends what the driver runs on its own (timers, fetch-ahead, a
   * connection it opened) and any request still out from a call the Queue stopped waiting for.
   */
  close(): Promise<void>;
}
