import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { Telemetry } from '@queueport/core';
import { instrumentFactory } from './instrument-factory';
import { loadOtelApi, type ModuleLoader } from './load-api';
import { OtelQueueTelemetry } from './otel-queue-telemetry';
import { queueInstruments } from './queue-instruments';
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from './scope';

export interface OtelTelemetryOptions {
  /** Where metrics go; the globally registered provider by default. */
  meterProvider?: MeterProvider;
  /** Where spans go; the globally registered provider by default. */
  tracerProvider?: TracerProvider;
  /** `messaging.system`; by default the driver's name up to its first `:` (`memory`, `bullmq`, `sqs`). */
  system?: string;
  /** `messaging.destination.name`; by default the queue's (its driver's) name. */
  destinationName?: string;
  /** Test hook: how `@opentelemetry/api` is loaded. */
  loadModule?: ModuleLoader;
}

/**
 * A Queue's `telemetry` over OpenTelemetry. Where `@opentelemetry/api` is not installed it is
 * a no-op: the Queue then runs exactly as without telemetry.
 */
export function otelTelemetry(options: OtelTelemetryOptions = {}): Telemetry {
  const api = loadOtelApi(options.loadModule);
  if (!api) return { forQueue: () => undefined };
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(
    INSTRUMENTATION_SCOPE,
    INSTRUMENTATION_VERSION,
  );
  const instruments = queueInstruments(instrumentFactory(api, options.meterProvider));
  return {
    forQueue(queue) {
      const telemetry = new OtelQueueTelemetry(api, tracer, instruments, {
        system: options.system ?? systemOf(queue.name),
        destination: options.destinationName ?? queue.name,
      });
      queue.on('retry', ({ operation }) => telemetry.providerRetry(operation));
      return telemetry;
    },
  };
}

function systemOf(driverName: string): string {
  const colon = driverName.indexOf(':');
  return colon === -1 ? driverName : driverName.slice(0, colon);
}
