import { type EnvelopeInput, Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { otelTelemetry } from '@queueport/otel';
import { type PairScenario, timed } from '../runner';
import { benchOtelSdk } from '../shared/otel-sdk';

const BATCH = 10;

function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `bench_${label}_${i}:settled:v1`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR' },
  }));
}

/** Publishes in tens, then receives ten at a time and acks them: the queue-vs-driver loop. */
async function publishReceiveAck(queue: Queue, all: readonly EnvelopeInput[]): Promise<number> {
  for (let i = 0; i < all.length; i += BATCH) {
    await queue.publishBatch(all.slice(i, i + BATCH).map((envelope) => ({ envelope })));
  }
  for (let received = 0; received < all.length; ) {
    const batch = await queue.receive({ maxMessages: BATCH, leaseSeconds: 60 });
    await queue.ackBatch(batch);
    received += batch.length;
  }
  return all.length;
}

export const queueOtel: PairScenario = {
  kind: 'pair',
  name: 'queue-otel',
  description:
    'The Queue over the memory driver with OpenTelemetry on (the SDK recording every span and metric, a span exporter that drops what it gets) beside the same Queue without telemetry.',
  subject: `Queue with otelTelemetry: publishBatch in tens, receive ${BATCH} at a time + ackBatch (memory driver)`,
  baseline: 'the same Queue and messages without telemetry',
  targets: [{ metric: 'ratio', atLeast: 0.5 }],
  remains:
    'a producer span per publish call, a receive span per batch with a link per publish call, the traceparent attribute written and read, and the counters and histograms the SDK aggregates per call.',
  async open({ quick }) {
    const messages = quick ? 2000 : 50_000;
    const sdk = benchOtelSdk();
    const { meterProvider, tracerProvider } = sdk;
    const telemetry = otelTelemetry({ meterProvider, tracerProvider });
    const run = async (label: string, traced: boolean) => {
      const queue = new Queue(new MemoryDriver(), traced ? { telemetry } : {});
      try {
        return await timed(() => publishReceiveAck(queue, inputs(label, messages)));
      } finally {
        await queue.close();
      }
    };
    return {
      detail: `${messages} messages per round`,
      subject: sdk.traced((label) => run(label, true)),
      baseline: (label) => run(label, false),
      close: () => sdk.shutdown(),
    };
  },
};
