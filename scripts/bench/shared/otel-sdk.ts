/**
 * OpenTelemetry's SDK as a production process runs it, minus the export: every span is made,
 * ended and handed to an exporter, every instrument records and aggregates. What is left out is
 * the network, which belongs to the collector and not to queueport.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** Spans are handed over, then dropped: the cost of tracing without an exporter's. */
class DiscardingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/** Metrics are recorded and aggregated, and never read: the cost of the instruments alone. */
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface BenchOtelSdk {
  meterProvider: MeterProvider;
  tracerProvider: BasicTracerProvider;
  shutdown(): Promise<void>;
}

export function benchOtelSdk(): BenchOtelSdk {
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new DiscardingExporter())],
  });
  return {
    meterProvider,
    tracerProvider,
    shutdown: async () => {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}
