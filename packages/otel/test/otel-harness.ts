import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A reader that exports nothing on its own: the test pulls with `collect()`. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Point {
  name: string;
  attributes: Record<string, unknown>;
  /** A counter's sum, a gauge's value, or a histogram's count. */
  value: number;
}

/**
 * Real OpenTelemetry SDK parts for a test: a meter provider read on demand, a tracer provider
 * whose spans land in memory, and the AsyncLocalStorage context manager, so a handler's work
 * runs inside its delivery's span as it does under the Node SDK.
 */
export function otelHarness() {
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);

  async function points(): Promise<Point[]> {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    return flatten(resourceMetrics);
  }

  return {
    meterProvider,
    tracerProvider,
    points,
    /** The points of one instrument whose attributes include `match`. */
    async metric(name: string, match: Record<string, unknown> = {}): Promise<Point[]> {
      return (await points()).filter(
        (p) => p.name === name && Object.entries(match).every(([k, v]) => p.attributes[k] === v),
      );
    },
    /** The sum of the values of `metric(name, match)`: 0 when there is none. */
    async total(name: string, match: Record<string, unknown> = {}): Promise<number> {
      return (await this.metric(name, match)).reduce((sum, p) => sum + p.value, 0);
    },
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    async close(): Promise<void> {
      context.disable();
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

export type OtelHarness = ReturnType<typeof otelHarness>;

function flatten(metrics: ResourceMetrics): Point[] {
  const out: Point[] = [];
  for (const scope of metrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
        const value = typeof point.value === 'number' ? point.value : point.value.count;
        out.push({ name: metric.descriptor.name, attributes: { ...point.attributes }, value });
      }
    }
  }
  return out;
}
