export { CRASH_POINTS, type CrashInjector, type CrashPoint, SimulatedCrash } from './crash-points';
export {
  type DeliveryReport,
  type DeliveryResult,
  DeliveryWorker,
  type DeliveryWorkerOptions,
} from './delivery-worker';
export {
  DEFAULT_DESTINATION_REFRESH_MS,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  type DestinationDisabledEvent,
} from './destination-policy';
export {
  DELIVERY_WORKER_EVENT_NAMES,
  type DeliveryWorkerEvents,
  type WorkerReleaseCause,
} from './worker-events';
