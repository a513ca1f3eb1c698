export { QUEUE_TELEMETRY, traceContextOf } from './queue-telemetry';
export type {
  ProcessScope,
  PublishedMessageFacts,
  PublishedOutcome,
  PublishScope,
  QueueTelemetry,
  ReceivedFacts,
  ReceiveScope,
  Telemetry,
  TelemetryQueue,
} from './telemetry';
export { TRACE_CONTEXT_ATTRIBUTE, takeTraceContext, withTraceContext } from './trace-context';
export { tracedPublish } from './traced-publish';
