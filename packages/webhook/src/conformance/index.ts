export { classify, type EventHistory, type EventVerdict, FAILING_VERDICTS, tally } from './checker';
export { type ClaimObservations, observeLedger } from './observed-ledger';
export { type CrashWindowOptions, crashWindowProperties } from './properties';
export {
  type CrashRunOptions,
  type LedgerFactory,
  runCrashScenario,
  type ScenarioOutcome,
} from './run-scenario';
export { type CrashScenario, crashScenarioArb, type ScenarioPublish } from './scenario';
