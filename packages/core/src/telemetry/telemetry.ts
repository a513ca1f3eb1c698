import type { ConsumerEvents } from '../consumer/consumer-events';
import type { EventSource, QueueEvents } from '../events';
import type { Delivery } from '../queue/delivery';
import type { SettleResult } from '../queue/queue';
import type { Settlement } from '../queue/received-delivery';

/**
 * What telemetry may know of a message: identity and type, never its payload or attributes,
 * so an implementation cannot put either in a span or a metric by mistake.
 */
export interface PublishedMessageFacts {
  readonly eventId: string;
  readonly eventType: string;
  /** Encoded envelope plus attributes, in UTF-8 bytes. */
  readonly sizeBytes: number;
}

/** A publish's answer for one message, in the order the messages were given. */
export type PublishedOutcome =
  | { ok: true; messageId: string; duplicate: boolean }
  | { ok: false; error: unknown };

/** One publish call under way. */
export interface PublishScope {
  /**
   * The W3C `traceparent` to carry with message `index` (in `TRACE_CONTEXT_ATTRIBUTE`), or
   * undefined to carry none.
   */
  traceContext(index: number): string | undefined;
  /** The provider's answers, one per message; a publish that threw before any answer gives `error`. */
  end(outcomes: readonly PublishedOutcome[] | undefined, error?: unknown): void;
}

/** One receive call under way; nothing is recorded for a receive that brought nothing. */
export interface ReceiveScope {
  end(deliveries: readonly ReceivedFacts[]): void;
}

/** A delivery as a receive handed it out, with the trace context its publisher carried. */
export interface ReceivedFacts {
  readonly delivery: Delivery;
  readonly traceContext: string | undefined;
}

/** One handler run: `run` puts the handler in the delivery's trace, `end` says how it ended. */
export interface ProcessScope {
  run<T>(handler: () => Promise<T>): Promise<T>;
  /** The handler resolved (no argument) or failed (its error). */
  end(failure?: { error: unknown }): void;
}

/**
 * The few points where a Queue and its consumers report what they do. A Queue calls them only
 * when it was given a `telemetry`: without one, nothing here runs. Calls must not throw; an
 * implementation that can fail catches its own errors.
 */
export interface QueueTelemetry {
  publish(messages: readonly PublishedMessageFacts[]): PublishScope;
  receive(): ReceiveScope;
  /** A batch of settles of one kind, with each entry's outcome. */
  settled(settlement: Settlement, results: readonly SettleResult[]): void;
  /** A received body that never reached a handler; `deadLetter` says it went to the dead letters. */
  invalid(deadLetter: boolean): void;
  /** A consumer of this queue was made; the implementation may listen to its events. */
  consumer(consumer: EventSource<ConsumerEvents>): void;
  process(delivery: Delivery, traceContext: string | undefined): ProcessScope;
}

/** What a Queue tells its telemetry about itself. */
export interface TelemetryQueue extends EventSource<QueueEvents> {
  /** The driver's name, as in every error message: never a URL with credentials. */
  readonly name: string;
}

/**
 * A provider-neutral telemetry seam: `@queueport/otel` implements it over OpenTelemetry. One
 * instance may serve many queues; each Queue given it calls `forQueue` once, when it is made.
 * Undefined means there is nothing to report to, and the Queue then runs as without telemetry.
 */
export interface Telemetry {
  forQueue(queue: TelemetryQueue): QueueTelemetry | undefined;
}
