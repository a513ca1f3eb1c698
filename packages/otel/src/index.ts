export { ATTR, errorType } from './attribute-names';
export type { ModuleLoader } from './load-api';
export { type OtelTelemetryOptions, otelTelemetry } from './otel-telemetry';
export { observeQueueStats, type QueueStatsGaugeOptions } from './queue-stats-gauges';
export { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from './scope';
export {
  instrumentWorker,
  type StopInstrumentation,
  type WorkerInstrumentationOptions,
} from './worker-instrumentation';
export type { ReportingWorker, WorkerReport } from './worker-reports';
