import type { Attributes, Link, Span, Tracer } from '@opentelemetry/api';
import type {
  ConsumerEvents,
  Delivery,
  EventSource,
  ProcessScope,
  PublishedMessageFacts,
  PublishedOutcome,
  PublishScope,
  QueueTelemetry,
  ReceivedFacts,
  ReceiveScope,
  SettleResult,
} from '@queueport/core';
import { ATTR, errorType } from './attribute-names';
import type { OtelApi } from './load-api';
import type { QueueInstruments } from './queue-instruments';
import { formatTraceparent, parseTraceparent } from './trace-parent';

type Settlement = 'acked' | 'released' | 'dead-lettered';

const nowMs = () => performance.timeOrigin + performance.now();

/**
 * One Queue's reports as OpenTelemetry spans and metrics. Every attribute is named by the
 * messaging conventions or `queueport.`, and every value is an identity, a type, a count or a
 * code: a payload, a message attribute or an error message never reaches a span or a metric.
 */
export class OtelQueueTelemetry implements QueueTelemetry {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #instruments: QueueInstruments;
  /** messaging.system and messaging.destination.name: on every span and metric point. */
  readonly #base: Attributes;
  readonly #destination: string;
  readonly #sendAttributes: Attributes;
  // The metric attributes of each operation, built once: every record of them would otherwise
  // allocate the same object again on the hot path.
  readonly #operations: Record<'publish' | 'receive' | 'process', Attributes>;
  readonly #processSpanBase: Attributes;

  constructor(
    api: OtelApi,
    tracer: Tracer,
    instruments: QueueInstruments,
    base: { system: string; destination: string },
  ) {
    this.#api = api;
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#destination = base.destination;
    this.#base = { [ATTR.system]: base.system, [ATTR.destinationName]: base.destination };
    this.#sendAttributes = { ...this.#base, [ATTR.operationType]: 'send', [ATTR.operationName]: 'publish' };
    const operation = (name: string) => ({ ...this.#base, [ATTR.operationName]: name });
    this.#operations = {
      publish: operation('publish'),
      receive: operation('receive'),
      process: operation('process'),
    };
    this.#processSpanBase = { ...this.#operations.process, [ATTR.operationType]: 'process' };
  }

  /**
   * One `send` span per publish call, as the messaging conventions have a batch sent in one
   * operation: its context is every message's creation context, so each delivery's trace still
   * continues from its publish. A span per message cost more than the rest of the publish path
   * together (about 50 µs a message in the SDK); a batch's event ids are on its deliveries'
   * process spans, whose parent this span is.
   */
  publish(messages: readonly PublishedMessageFacts[]): PublishScope {
    const api = this.#api;
    const startedAt = nowMs();
    const single = messages.length === 1 ? messages[0] : undefined;
    const span = this.#tracer.startSpan(
      `send ${this.#destination}`,
      {
        kind: api.SpanKind.PRODUCER,
        startTime: startedAt,
        attributes: single
          ? {
              ...this.#sendAttributes,
              [ATTR.eventId]: single.eventId,
              [ATTR.eventType]: single.eventType,
              [ATTR.bodySize]: single.sizeBytes,
            }
          : { ...this.#sendAttributes, [ATTR.batchCount]: messages.length },
      },
      api.context.active(),
    );
    let traceContext: string | undefined;
    return {
      traceContext: (index) => {
        if (index < 0 || index >= messages.length) return undefined;
        traceContext ??= formatTraceparent(api, span.spanContext());
        return traceContext;
      },
      end: (outcomes, error) => {
        const operation = this.#operations.publish;
        const failure = error === undefined ? undefined : errorType(error);
        this.#instruments.operationDuration.record(
          (nowMs() - startedAt) / 1000,
          failure ? { ...operation, [ATTR.errorType]: failure } : operation,
        );
        // One add per error type (usually one in all), not one per message.
        const sent = new Map<string | undefined, number>();
        let duplicates = 0;
        let firstFailure: string | undefined;
        messages.forEach((_message, index) => {
          const outcome: PublishedOutcome | undefined = outcomes?.[index];
          const type = outcome ? (outcome.ok ? undefined : errorType(outcome.error)) : failure;
          sent.set(type, (sent.get(type) ?? 0) + 1);
          firstFailure ??= type;
          if (outcome?.ok && outcome.duplicate) duplicates++;
        });
        const answer = single ? outcomes?.[0] : undefined;
        if (answer?.ok) span.setAttribute(ATTR.messageId, answer.messageId);
        if (duplicates > 0) {
          span.setAttribute(ATTR.duplicate, true);
          this.#instruments.duplicates.add(duplicates, this.#base);
        }
        for (const [type, count] of sent) {
          this.#instruments.sent.add(count, type ? { ...operation, [ATTR.errorType]: type } : operation);
        }
        // A batch some of whose messages were refused failed in part: its span says so, with
        // how many, and the first refusal's type.
        const failed = messages.length - (sent.get(undefined) ?? 0);
        if (failed > 0 && !single) span.setAttribute(ATTR.failedCount, failed);
        this.#end(span, failure ?? firstFailure);
      },
    };
  }

  receive(): ReceiveScope {
    const startedAt = nowMs();
    return {
      end: (deliveries) => {
        if (deliveries.length === 0) return;
        this.#received(deliveries, startedAt);
      },
    };
  }

  #received(deliveries: readonly ReceivedFacts[], startedAt: number): void {
    const api = this.#api;
    const operation = this.#operations.receive;
    this.#instruments.consumed.add(deliveries.length, operation);
    this.#instruments.operationDuration.record((nowMs() - startedAt) / 1000, operation);
    // Deliveries published in one batch share one creation context: one link to it.
    const links: Link[] = [];
    const linked = new Set<string>();
    for (const { traceContext } of deliveries) {
      if (traceContext === undefined || linked.has(traceContext)) continue;
      linked.add(traceContext);
      const context = parseTraceparent(api, traceContext);
      if (context) links.push({ context });
    }
    const span = this.#tracer.startSpan(
      `receive ${this.#destination}`,
      {
        kind: api.SpanKind.CLIENT,
        startTime: startedAt,
        links,
        attributes: {
          ...operation,
          [ATTR.operationType]: 'receive',
          [ATTR.batchCount]: deliveries.length,
        },
      },
      api.context.active(),
    );
    span.end();
  }

  settled(settlement: Settlement, results: readonly SettleResult[]): void {
    let ok = 0;
    for (const result of results) {
      if (result.ok) ok++;
      else {
        this.#instruments.settleFailures.add(1, {
          ...this.#base,
          [ATTR.settlement]: settlement,
          [ATTR.errorType]: errorType(result.error),
        });
      }
    }
    if (ok === 0) return;
    if (settlement === 'acked') this.#instruments.acked.add(ok, this.#base);
    else if (settlement === 'released') this.#instruments.released.add(ok, this.#base);
    else this.#instruments.deadLettered.add(ok, { ...this.#base, [ATTR.deadLetterTo]: 'dead-letters' });
  }

  invalid(deadLetter: boolean): void {
    this.#instruments.invalid.add(1, { ...this.#base, [ATTR.deadLettered]: deadLetter });
    if (deadLetter)
      this.#instruments.deadLettered.add(1, { ...this.#base, [ATTR.deadLetterTo]: 'dead-letters' });
  }

  /** A provider call about to be retried (the Queue's `retry` event). */
  providerRetry(operation: string): void {
    this.#instruments.retries.add(1, {
      ...this.#base,
      [ATTR.retryKind]: 'provider-call',
      [ATTR.operationName]: operation,
    });
  }

  consumer(consumer: EventSource<ConsumerEvents>): void {
    // Only events that report no problem: listening to a problem event would stop it being logged.
    consumer.on('handler-failed', ({ decision }) => {
      if (decision.action === 'release')
        this.#instruments.retries.add(1, { ...this.#base, [ATTR.retryKind]: 'redelivery' });
    });
    consumer.on('dead-lettered', ({ to }) => {
      // A move to the dead letters is counted where the Queue settles it; a sink only here.
      if (to === 'sink')
        this.#instruments.deadLettered.add(1, { ...this.#base, [ATTR.deadLetterTo]: 'sink' });
    });
  }

  process(delivery: Delivery, traceContext: string | undefined): ProcessScope {
    const api = this.#api;
    const producer = parseTraceparent(api, traceContext);
    // The delivery continues its publisher's trace: the publish span is its parent, and a link.
    const parent = producer ? api.trace.setSpanContext(api.context.active(), producer) : api.context.active();
    const startedAt = nowMs();
    const span = this.#tracer.startSpan(
      `process ${this.#destination}`,
      {
        kind: api.SpanKind.CONSUMER,
        startTime: startedAt,
        ...(producer ? { links: [{ context: producer }] } : {}),
        attributes: {
          ...this.#processSpanBase,
          [ATTR.messageId]: delivery.messageId,
          [ATTR.eventId]: delivery.envelope.event_id,
          [ATTR.eventType]: delivery.envelope.type,
          [ATTR.receiveCount]: delivery.receiveCount,
        },
      },
      parent,
    );
    const active = api.trace.setSpan(parent, span);
    return {
      run: (handler) => api.context.with(active, handler),
      end: (failure) => {
        const type = failure ? errorType(failure.error) : undefined;
        const operation = this.#operations.process;
        this.#instruments.processDuration.record(
          (nowMs() - startedAt) / 1000,
          type ? { ...operation, [ATTR.errorType]: type } : operation,
        );
        this.#end(span, type);
      },
    };
  }

  /** Ends a span; a failure is its `error.type` and an error status with no message. */
  #end(span: Span, type: string | undefined): void {
    if (type) {
      span.setAttribute(ATTR.errorType, type);
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    }
    span.end();
  }
}
