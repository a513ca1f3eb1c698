export { realClock, realTimeHarness, virtualTimeHarness } from './define-harness';
export type { ConformanceHarness, HarnessClock, QueueUnderTest, ResolvedTiming } from './harness';
export { resolveTiming } from './harness';
