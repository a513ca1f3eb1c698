export {
  formatFailure,
  formatNotes,
  formatReport,
  formatResultLine,
  type ReplayStyle,
  replayLine,
} from './format-report';
export type { ConformanceReport, PropertyResult, PropertyStatus } from './report';
export {
  type ProgressEvent,
  probeHarness,
  type RunConformanceOptions,
  runConformance,
} from './run-conformance';
export {
  CLEANUP_TIMEOUT_MS,
  DEFAULT_PROPERTY_TIMEOUT_MS,
  INTERRUPTED,
  type PropertyRunOptions,
  runProperty,
} from './run-property';
