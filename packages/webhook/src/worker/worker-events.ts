import {
  CONSUMER_EVENT_NAMES,
  type Consumer,
  type ConsumerEvents,
  type ConsumerReleaseCause,
  type Delivery,
  eventNames,
  type LeaseLostEvent,
  type ReleasedEvent,
} from '@queueport/core';
import type { DeliveryOutcome } from '../sender';
import type { DeliveryReport } from './delivery-worker';
import type { DestinationDisabledEvent } from './destination-policy';

/** Why a delivery went back to the queue: the consumer's causes, and the worker's own. */
export type WorkerReleaseCause =
  | ConsumerReleaseCause
  /** The receiver asked for a retry (or did not answer): released until the ledger's `retryAt`. */
  | 'retry-scheduled'
  /** Another worker holds the ledger lease: released until that lease ends. */
  | 'busy'
  /** The ledger lease was lost before the commit: released at once, whoever holds the event settles it. */
  | 'ledger-lease-lost'
  /**
   * The destination's rate limit has no token for it soon: released until its turn (reserved
   * for it), before any claim, so no attempt is counted.
   */
  | 'rate-limited';

/**
 * A worker's events: `worker.on(name, listener)`. What its consumers emit (`received`,
 * `handler-failed`, `handler-timeout`, `drained`, `error`, and what they settle themselves) is
 * emitted here too, for every consumer `start()` made; the rest is the worker's own.
 */
export interface DeliveryWorkerEvents
  extends Omit<ConsumerEvents, 'acked' | 'released' | 'lease-lost' | 'closing' | 'closed'> {
  /**
   * A consumer `start()` made has had its first receive answered, with messages or without: the
   * worker is taking deliveries from the queue from now on. Once per `start()`, before that
   * consumer's first `received` or `drained`. While the provider cannot be reached it waits,
   * and each failed receive is an `error` event instead.
   */
  receiving: { consumer: Consumer };
  /** Every delivery the worker processed, with its result (`onReport` is a listener of this). */
  report: DeliveryReport;
  /**
   * Acked: delivered now (`delivered`), settled earlier (`already-settled`), parked in the ledger
   * while its destination is disabled (`parked`), or by a consumer (no result).
   */
  acked: { delivery: Delivery; result?: 'delivered' | 'already-settled' | 'parked' };
  released: ReleasedEvent<WorkerReleaseCause>;
  /** The receiver's answer calls for another attempt; a `released` of cause `retry-scheduled` follows. */
  retry: { delivery: Delivery; eventId: string; attempt: number; delayMs: number; outcome: DeliveryOutcome };
  /** A queue lease (from a consumer), or the worker's ledger lease at commit. A problem: logged once when unheard. */
  'lease-lost': LeaseLostEvent | { delivery: Delivery; error: unknown; during: 'ledger-commit' };
  /**
   * This worker disabled a destination (durably, in the ledger): its sends failed past its
   * `disableAfter` bound, or it answered 410. Once per disable, by the worker that made it; its
   * events are parked from now on, until it is enabled and resumed.
   */
  'destination.disabled': DestinationDisabledEvent;
  /** `close()` began: the worker's consumers stop receiving and drain. */
  closing: { timeoutMs: number | undefined };
  /** Every consumer the worker started has stopped; `abandoned` as in the consumer's `closed`. */
  closed: { abandoned: number };
}

export const DELIVERY_WORKER_EVENT_NAMES = eventNames<DeliveryWorkerEvents>({
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
  receiving: true,
  report: true,
  retry: true,
  'destination.disabled': true,
});

/** What a worker re-emits of each consumer it started: all but the consumer's own `closing` and `closed`. */
export const FORWARDED_CONSUMER_EVENTS = CONSUMER_EVENT_NAMES.filter(
  (name) => name !== 'closing' && name !== 'closed',
);
