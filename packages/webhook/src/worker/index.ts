export { CRASH_POINTS, type CrashInjector, type CrashPoint, SimulatedCrash } from './crash-points';
export {
  type DeliveryReport,
  type DeliveryResult,
  DeliveryWorker,
  type DeliveryWorkerOptions,
} from './delivery-worker';
export {
  DELIVERY_WORKER_EVENT_NAMES,
  type DeliveryWorkerEvents,
  type WorkerReleaseCause,
} from './worker-events';
