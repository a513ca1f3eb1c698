export { formatFailure, formatReport, formatResultLine, type ReplayStyle, replayLine } from './format-report';
export type { ConformanceReport, PropertyResult, PropertyStatus } from './report';
export {
  type ProgressEvent,
  probeHarness,
  type RunConformanceOptions,
  runConformance,
} from './run-conformance';
export { type PropertyRunOptions, runProperty } from './run-property';
