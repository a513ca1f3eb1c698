import { eventNames, type ListenerErrorEvent } from '../events';
import type { Delivery } from '../queue/delivery';
import type { FailureDecision } from './failure-policy';

/**
 * Counts kept by a consumer since it started. `acked`, `released` and `deadLettered` count
 * deliveries settled that way, by the consumer or by a handler that settles its own.
 */
export interface ConsumerStats {
  received: number;
  acked: number;
  released: number;
  deadLettered: number;
  /** Failures reported as `error` (a failing listener aside) or `lease-lost` events, as `onError` hears them. */
  errors: number;
  /** Handlers that had not settled within `handlerTimeoutMs`. */
  timedOut: number;
}

/** Why the consumer released a delivery. */
export type ConsumerReleaseCause =
  /** The handler failed and the failure policy retries it: `delaySeconds` is its backoff. */
  | 'handler-failed'
  /** The handler ran past `handlerTimeoutMs`: a failure like any other, with its backoff. */
  | 'handler-timeout'
  /** `close({ timeoutMs })` ran out first: released at once, so it comes back without waiting. */
  | 'closing'
  /** Given up, with no dead letters to move to and no sink: kept, with the longest backoff. */
  | 'kept';

export interface ReleasedEvent<C extends string = ConsumerReleaseCause> {
  delivery: Delivery;
  delaySeconds: number;
  cause: C;
  /** The handler's error, for a release after a failure or a timeout. */
  error?: unknown;
}

export interface DeadLetteredEvent {
  delivery: Delivery;
  reason: string;
  /** The provider's dead letters (`deadLetter.move`), or the application's sink (then acked). */
  to: 'dead-letters' | 'sink';
}

/** The consumer can no longer count on this delivery's lease; the message comes back to whoever receives it next. */
export interface LeaseLostEvent {
  delivery: Delivery;
  error: unknown;
  /**
   * `extension`: extending the lease failed, and the handler's signal is aborted. `settle`: the
   * provider refused to settle it with LEASE_LOST (the lease ran out, someone else may hold it).
   */
  during: 'extension' | 'settle';
}

/** Failures that are nobody's result: the `onError` option is a listener of these. */
export type ConsumerErrorEvent =
  /** A receive failed after the Queue's own retries; the loop pauses (growing backoff) and goes on. */
  | { kind: 'receive'; error: unknown }
  /** An ack, release, dead-letter move or sink failed; the message comes back when its lease ends. */
  | { kind: 'settle'; error: unknown; delivery: Delivery }
  /** Given up with nowhere to put it: released with the longest backoff instead (a `released` of cause `kept`). */
  | { kind: 'no-dead-letter'; error: unknown; delivery: Delivery }
  /** The handler settled its delivery itself and then threw; the delivery stays as the handler left it. */
  | { kind: 'handler-after-settle'; error: unknown; delivery: Delivery }
  | ListenerErrorEvent;

/** A consumer's events: `consumer.on(name, listener)`. */
export interface ConsumerEvents {
  /** A delivery was received and is about to be handed to the handler. */
  received: { delivery: Delivery };
  /** The handler resolved and the consumer acked the delivery. */
  acked: { delivery: Delivery };
  /** The consumer released the delivery (a handler that settles its own delivery is not reported here). */
  released: ReleasedEvent;
  /** The consumer gave up on the delivery: permanent failure, or the policy's attempts spent. */
  'dead-lettered': DeadLetteredEvent;
  /**
   * The handler threw, rejected or timed out. `decision` is the failure policy's answer, which
   * a `released` or a `dead-lettered` event follows. BullMQ's `failed`, sqs-consumer's `processing_error`.
   */
  'handler-failed': { delivery: Delivery; error: unknown; decision: FailureDecision };
  /**
   * The handler had not settled within `handlerTimeoutMs`: its signal is aborted, its slot freed,
   * and a `handler-failed` follows (a timeout is a retryable failure).
   */
  'handler-timeout': { delivery: Delivery; timeoutMs: number };
  /** A problem: logged (once) when nothing listens. */
  'lease-lost': LeaseLostEvent;
  /** A receive found nothing and no delivery is in flight: once per idle spell, until something arrives. */
  drained: { stats: ConsumerStats };
  /** The consumer stops receiving (`close()` or its signal) and drains what is in flight. */
  closing: { timeoutMs: number | undefined; inFlight: number };
  /**
   * The loop has stopped and nothing is in flight. `abandoned` counts the handlers still running
   * when close's `timeoutMs` ran out: their signals were aborted and their deliveries released.
   */
  closed: { stats: ConsumerStats; abandoned: number };
  /** A problem: logged (once per kind) when nothing listens. */
  error: ConsumerErrorEvent;
}

export const CONSUMER_EVENT_NAMES = eventNames<ConsumerEvents>({
  received: true,
  acked: true,
  released: true,
  'dead-lettered': true,
  'handler-failed': true,
  'handler-timeout': true,
  'lease-lost': true,
  drained: true,
  closing: true,
  closed: true,
  error: true,
});
