import { adapterHarness, dedupeWindow } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { bullmqAdapter } from '../src';
import { bullmqProviderUrl } from './support/redis';

// The whole suite on a real Redis, on real time at the suite's documented timing, with the
// URL's default options: the stalled check follows the leases in use, so a lost lease comes back
// well inside the suite's 1 s of slack without a stalledIntervalMs of its own.
describeConformance(
  'bullmq',
  adapterHarness(bullmqAdapter, bullmqProviderUrl({ prefix: 'qp-conformance' })),
  {
    numRuns: 2,
  },
);

// The default 300 s dedupe window is too long to wait out on real time, so `dedupe-window` is
// skipped above. With a 2 s window it fits the suite's real-time budget, and the window's
// edges are proven on Redis itself, TTL and all. Only that property: the others take longer
// than 2 s between the publishes they expect to be absorbed.
describeConformance(
  'bullmq, 2 s dedupe window',
  adapterHarness(bullmqAdapter, bullmqProviderUrl({ prefix: 'qp-conformance', dedupeWindowSeconds: 2 })),
  { numRuns: 2, properties: [dedupeWindow] },
);
