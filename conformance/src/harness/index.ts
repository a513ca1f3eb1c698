export {
  type AdapterHarnessOptions,
  adapterHarness,
  SCRATCH_REDRIVE_AFTER_RECEIVES,
} from './adapter-harness';
export { type DriverUnderTest, realClock, realTimeHarness, virtualTimeHarness } from './define-harness';
export type { ConformanceHarness, HarnessClock, QueueUnderTest, ResolvedTiming } from './harness';
export { resolveTiming } from './harness';
