import { trace } from '@opentelemetry/api';
import { isQueueError, Queue, QueueError, TRACE_CONTEXT_ATTRIBUTE } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { otelTelemetry } from '../src';
import { type OtelHarness, otelHarness } from './otel-harness';

const envelope = (id: string) => ({ event_id: id, type: 'order.paid', payload: { order: id } });

describe('a trace from publish to delivery', () => {
  let otel: OtelHarness;
  let clock: VirtualClock;
  beforeEach(() => {
    otel = otelHarness();
    clock = new VirtualClock();
  });
  afterEach(() => otel.close());

  const queueOver = (driver: MemoryDriver) =>
    new Queue(driver, {
      clock,
      logger: { warn: () => {} },
      telemetry: otelTelemetry({ meterProvider: otel.meterProvider, tracerProvider: otel.tracerProvider }),
    });

  it("continues the publisher's trace: the process span is the publish span's child, and the handler runs inside it", async () => {
    const queue = queueOver(new MemoryDriver({ clock }));
    const tracer = otel.tracerProvider.getTracer('app');
    await tracer.startActiveSpan('checkout', async (request) => {
      await queue.publish({ envelope: envelope('e1'), attributes: { tenant: 't1' } });
      request.end();
    });
    let inHandler: string | undefined;
    let attributes: Readonly<Record<string, string>> | undefined;
    const consumer = queue.consume(async (delivery) => {
      inHandler = trace.getActiveSpan()?.spanContext().spanId;
      attributes = delivery.attributes;
    });
    for (let i = 0; i < 50 && inHandler === undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await consumer.close();
    await queue.close();

    const spans = otel.spans();
    const checkout = spans.find((s) => s.name === 'checkout')!;
    const publish = spans.find((s) => s.name === 'send memory')!;
    const receive = spans.find((s) => s.name === 'receive memory')!;
    const process = spans.find((s) => s.name === 'process memory')!;
    expect(publish.parentSpanContext?.spanId).toBe(checkout.spanContext().spanId);
    expect(publish.kind).toBe(3); // PRODUCER
    expect(process.kind).toBe(4); // CONSUMER
    expect(process.spanContext().traceId).toBe(publish.spanContext().traceId);
    expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(process.links.map((l) => l.context.spanId)).toEqual([publish.spanContext().spanId]);
    expect(receive.links.map((l) => l.context.spanId)).toEqual([publish.spanContext().spanId]);
    expect(inHandler).toBe(process.spanContext().spanId);
    expect(process.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'queueport.event.id': 'e1',
      'queueport.event.type': 'order.paid',
    });
    // The reserved attribute carried the context; the application sees only its own.
    expect(attributes).toEqual({ tenant: 't1' });
  });

  it('continues every delivery of a batch from its one send span', async () => {
    const queue = queueOver(new MemoryDriver({ clock }));
    await queue.publishBatch(['b1', 'b2', 'b3'].map((id) => ({ envelope: envelope(id) })));
    const seen: string[] = [];
    const consumer = queue.consume(async (delivery) => {
      seen.push(delivery.envelope.event_id);
    });
    for (let i = 0; i < 50 && seen.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await consumer.close();
    await queue.close();

    const sends = otel.spans().filter((s) => s.name === 'send memory');
    expect(sends).toHaveLength(1);
    const send = sends[0]!;
    expect(send.attributes['messaging.batch.message_count']).toBe(3);
    const processes = otel.spans().filter((s) => s.name === 'process memory');
    expect(processes.map((s) => s.attributes['queueport.event.id']).sort()).toEqual(['b1', 'b2', 'b3']);
    for (const process of processes) {
      expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
      expect(process.spanContext().traceId).toBe(send.spanContext().traceId);
    }
    // However many of the batch one receive brought, one link to the batch.
    for (const receive of otel.spans().filter((s) => s.name === 'receive memory')) {
      expect(receive.links.map((l) => l.context.spanId)).toEqual([send.spanContext().spanId]);
    }
  });

  it('keeps the trace across the delay bridge, hop after hop', async () => {
    const queue = queueOver(new MemoryDriver({ clock, nativeMaxDelaySeconds: 900 }));
    await queue.publish({ envelope: envelope('later'), delaySeconds: 2_000 });
    await clock.advance(900_000);
    expect(await queue.receive()).toEqual([]); // a hop, re-sent unseen
    await clock.advance(1_100_000);
    const [delivery] = await queue.receive();
    expect(delivery?.attributes).toEqual({});
    const publish = otel.spans().find((s) => s.name === 'send memory')!;
    const receives = otel.spans().filter((s) => s.name === 'receive memory');
    expect(receives).toHaveLength(1);
    expect(receives[0]!.links[0]?.context.traceId).toBe(publish.spanContext().traceId);
    await delivery!.ack();
    await queue.close();
  });

  it('carries nothing, and takes no slot, where the message has no room for the attribute', async () => {
    const driver = new MemoryDriver({ clock });
    const queue = queueOver(driver);
    const eight = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`a${i}`, 'v']));
    await queue.publish({ envelope: envelope('full'), attributes: eight });
    const [raw] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(Object.keys(raw!.attributes)).toContain(TRACE_CONTEXT_ATTRIBUTE); // 8 + 1: one slot still free
    await driver.ack([raw!.receipt]);
    await queue.close();
  });

  it('refuses the reserved attribute from an application', async () => {
    const queue = queueOver(new MemoryDriver({ clock }));
    const refused = await queue
      .publish({ envelope: envelope('x'), attributes: { [TRACE_CONTEXT_ATTRIBUTE]: '00-abc' } })
      .catch((error: unknown) => error);
    expect(isQueueError(refused, 'INVALID_ARGUMENT')).toBe(true);
    await queue.close();
  });

  it('marks a batch some of whose messages the provider refused: how many, and the first refusal', async () => {
    // A provider that takes the batch but refuses its second and third messages.
    class RefusingDriver extends MemoryDriver {
      override async publish(messages: Parameters<MemoryDriver['publish']>[0]) {
        const outcomes = await super.publish(messages);
        return outcomes.map((outcome, index) =>
          index === 1 || index === 2
            ? {
                ok: false as const,
                error: new QueueError('PAYLOAD_TOO_LARGE', 'too large for this provider'),
              }
            : outcome,
        );
      }
    }
    const queue = queueOver(new RefusingDriver({ clock }));
    const refused = await queue
      .publishBatch(['b1', 'b2', 'b3', 'b4'].map((id) => ({ envelope: envelope(id) })))
      .catch((error: unknown) => error);
    expect(isQueueError(refused, 'PAYLOAD_TOO_LARGE')).toBe(true);
    await queue.close();

    const [send] = otel.spans().filter((s) => s.name === 'send memory');
    expect(send?.attributes).toMatchObject({
      'messaging.batch.message_count': 4,
      'queueport.publish.failed_count': 2,
      'error.type': 'PAYLOAD_TOO_LARGE',
    });
    expect(send?.status.code).toBe(2); // ERROR
  });
});
