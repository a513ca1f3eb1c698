export { classify, type EventHistory, type EventVerdict, tally } from './checker';
export { crashWindowProperties } from './properties';
export { type LedgerFactory, runCrashScenario, type ScenarioOutcome } from './run-scenario';
export { type CrashScenario, crashScenarioArb } from './scenario';
