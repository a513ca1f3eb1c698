/** @queueport/infrai/testing: the Infrai simulator, for tests, conformance runs, benchmarks and drills. */
export type { ActionFault, FaultScope, InfraiFault, SimulatorFaults } from './faults';
export type { RateLimit } from './rate-limiter';
export type { SimulatorRequest } from './request-log';
export {
  DEFAULT_SIMULATOR_API_KEY,
  type InfraiSimulator,
  type InfraiSimulatorOptions,
  type SimulatorQueueState,
  startInfraiSimulator,
} from './simulator';
