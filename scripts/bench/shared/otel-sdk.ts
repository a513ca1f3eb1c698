/**
 * OpenTelemetry's SDK as a production process runs it, minus the export: every span is made,
 * ended and handed to an exporter, every instrument records and aggregates. What is left out is
 * the network, which belongs to the collector and not to queueport. Spans go through the batch
 * processor, as OpenTelemetry advises for production (the simple one exports each span as it
 * ends, for tests and debugging), with a queue deep enough that none is dropped: a dropped span
 * would cost less than one exported and flatter the ratio. The context manager is the one the
 * Node SDK registers, so a delivery's handler runs inside its span as it does in production; it
 * is on only while a side with telemetry runs (`traced`), since its async hooks cost every
 * promise in the process and a baseline without OpenTelemetry would not pay that.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { Side } from '../runner';

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
  /** `side`, run with the context manager registered, as a process with the SDK runs. */
  traced(side: Side): Side;
  shutdown(): Promise<void>;
}

export function benchOtelSdk(): BenchOtelSdk {
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(new DiscardingExporter(), { maxQueueSize: 1 << 17, maxExportBatchSize: 512 }),
    ],
  });
  return {
    meterProvider,
    tracerProvider,
    traced: (side) => async (label) => {
      const manager = new AsyncLocalStorageContextManager().enable();
      context.setGlobalContextManager(manager);
      try {
        return await side(label);
      } finally {
        // Unregistered and disabled: the baseline's rounds run without its hooks.
        context.disable();
      }
    },
    shutdown: async () => {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}
