import { instrumentWorker, otelTelemetry } from '@queueport/otel';
import type { PairScenario } from '../runner';
import { tempDir } from '../shared/fixtures';
import { benchOtelSdk } from '../shared/otel-sdk';
import { deliveryPipeline } from '../shared/pipeline';
import { DELIVERY_CONCURRENCY, deliveryEvents, PIPELINE_SUBJECT } from './delivery-sizes';

/**
 * The price of observing the delivery path, as the throughput issue's targets are stated on it:
 * the same pipeline with every span and instrument on (the Queue's telemetry and the worker's
 * per-destination reports) beside itself with none. A target met without telemetry stays met
 * with it when this ratio is near 1; a target short without it is short by this much more.
 */
export const deliveryOtel: PairScenario = {
  kind: 'pair',
  name: 'delivery-otel',
  description:
    'The whole delivery path with OpenTelemetry on (the SDK recording every span and metric of the Queue and the worker, exporters that drop what they get) beside the same path without telemetry.',
  subject: `${PIPELINE_SUBJECT}, with otelTelemetry on the Queue and instrumentWorker on the worker`,
  baseline: 'the same pipeline, events and receiver without telemetry',
  targets: [{ metric: 'ratio', atLeast: 0.9 }],
  remains:
    'per delivery: the consumer span with its link to the publisher, a tenth of the producer span of a publish in tens, the traceparent attribute written and read, the message counters and handler duration, and the worker report turned into outcome, attempt duration, latency and objective counts.',
  async open({ quick }) {
    const events = deliveryEvents(quick);
    const temp = tempDir('otel');
    const sdk = benchOtelSdk();
    const { meterProvider, tracerProvider } = sdk;
    const observers = {
      telemetry: otelTelemetry({ meterProvider, tracerProvider }),
      instrument: (worker: Parameters<typeof instrumentWorker>[0]) =>
        instrumentWorker(worker, { meterProvider, objectiveMs: 60_000 }),
    };
    return {
      detail: `${events} events per round; ${DELIVERY_CONCURRENCY} at once`,
      subject: sdk.traced(deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY, observers)),
      baseline: deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY),
      close: async () => {
        await sdk.shutdown();
        temp.remove();
      },
    };
  },
};
