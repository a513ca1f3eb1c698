export { CRASH_POINTS, type CrashInjector, type CrashPoint, SimulatedCrash } from './crash-points';
export {
  type DeliveryReport,
  type DeliveryResult,
  DeliveryWorker,
  type DeliveryWorkerOptions,
} from './delivery-worker';
