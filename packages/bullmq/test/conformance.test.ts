import { adapterHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { bullmqAdapter } from '../src';
import { bullmqProviderUrl } from './support/redis';

// The whole suite on a real Redis, on real time at the suite's documented timing. A stalled
// check every 250 ms returns a lost lease well inside the suite's 1 s of slack.
describeConformance(
  'bullmq',
  adapterHarness(bullmqAdapter, bullmqProviderUrl({ prefix: 'qp-conformance', stalledIntervalMs: 250 })),
  { numRuns: 2 },
);
