import { Queue, type QueueTelemetry, type Telemetry, TRACE_CONTEXT_ATTRIBUTE } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { takeTraceContext, withTraceContext } from '../../src/telemetry';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const message = (attributes: Record<string, string>): OutgoingMessage => ({
  eventId: 'e',
  dedupeKey: 'e',
  body: '{}',
  attributes,
  delaySeconds: 0,
});
const attributes = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, 'v']));

describe('the trace context attribute', () => {
  it('is added while a slot stays free for the driver and the bytes fit', () => {
    expect(
      withTraceContext(message(attributes(8)), TRACEPARENT, 100, 1_000).attributes[TRACE_CONTEXT_ATTRIBUTE],
    ).toBe(TRACEPARENT);
    expect(withTraceContext(message(attributes(9)), TRACEPARENT, 100, 1_000).attributes).toEqual(
      attributes(9),
    );
    const exact = 100 + TRACE_CONTEXT_ATTRIBUTE.length + TRACEPARENT.length;
    expect(withTraceContext(message({}), TRACEPARENT, 100, exact).attributes).toHaveProperty(
      TRACE_CONTEXT_ATTRIBUTE,
    );
    expect(withTraceContext(message({}), TRACEPARENT, 100, exact - 1).attributes).toEqual({});
  });

  it('is never something other than a W3C traceparent', () => {
    expect(withTraceContext(message({}), 'not-a-traceparent', 0, 1_000).attributes).toEqual({});
    expect(takeTraceContext({ [TRACE_CONTEXT_ATTRIBUTE]: 'forged\nvalue', tenant: 't' })).toEqual({
      attributes: { tenant: 't' },
      traceContext: undefined,
    });
    expect(takeTraceContext({ [TRACE_CONTEXT_ATTRIBUTE]: TRACEPARENT })).toEqual({
      attributes: {},
      traceContext: TRACEPARENT,
    });
  });
});

/** A telemetry that writes down what the Queue and its consumer report. */
function recordingTelemetry() {
  const calls: string[] = [];
  const telemetry: Telemetry = {
    forQueue: (queue): QueueTelemetry => ({
      publish: (messages) => {
        calls.push(`publish ${queue.name} ${messages.map((m) => `${m.eventId}:${m.eventType}`).join(',')}`);
        return {
          traceContext: () => TRACEPARENT,
          end: (outcomes) => void calls.push(`published ${outcomes?.length}`),
        };
      },
      receive: () => ({
        end: (deliveries) => void calls.push(`received ${deliveries.map((d) => d.traceContext).join(',')}`),
      }),
      settled: (settlement, results) => void calls.push(`${settlement} ${results.length}`),
      invalid: (deadLetter) => void calls.push(`invalid ${deadLetter}`),
      consumer: () => void calls.push('consumer'),
      process: (delivery, traceContext) => {
        calls.push(`process ${delivery.envelope.event_id} ${traceContext}`);
        return {
          run: (handler) => handler(),
          end: (failure) => void calls.push(`processed ${failure ? 'failed' : 'ok'}`),
        };
      },
    }),
  };
  return { telemetry, calls };
}

describe('the Queue and the consumer report to their telemetry', () => {
  it('publish, receive, process and settle, with the trace context carried and taken off the attributes', async () => {
    const { telemetry, calls } = recordingTelemetry();
    const queue = new Queue(new MemoryDriver(), { telemetry });
    await queue.publish({
      envelope: { event_id: 'e1', type: 'order.paid', payload: {} },
      attributes: { tenant: 't' },
    });
    let seen: Readonly<Record<string, string>> | undefined;
    const consumer = queue.consume(async (delivery) => {
      seen = delivery.attributes;
    });
    for (let i = 0; i < 100 && !calls.includes('acked 1'); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await consumer.close();
    await queue.close();
    expect(seen).toEqual({ tenant: 't' });
    expect(calls.filter((c) => !c.startsWith('received '))).toEqual([
      'publish memory e1:order.paid',
      'published 1',
      'consumer',
      `process e1 ${TRACEPARENT}`,
      'processed ok',
      'acked 1',
    ]);
    expect(calls).toContain(`received ${TRACEPARENT}`);
  });

  it('a telemetry with nothing to report to leaves the queue as it was', async () => {
    const driver = new MemoryDriver();
    const queue = new Queue(driver, { telemetry: { forQueue: () => undefined } });
    await queue.publish({ envelope: { event_id: 'e1', type: 't', payload: {} } });
    const [raw] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(raw?.attributes).toEqual({});
    await queue.close();
  });

  it('refuses a telemetry that is not one', () => {
    expect(() => new Queue(new MemoryDriver(), { telemetry: {} as Telemetry })).toThrow(/telemetry/);
  });
});
