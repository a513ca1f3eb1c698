import { realTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver } from '@queueport/memory';

// The whole suite on real time at the timing the README documents for hosted providers (the
// harness defaults: 1 s long poll, 1 s slack, 3 s of real waiting per delay), as every adapter
// and every user's CI runs it. Waits are real, so each property runs twice.
describeConformance(
  'memory on real time, documented timing',
  realTimeHarness('memory-real-time', async () => ({ driver: new MemoryDriver() }), {
    createMissingDriver: async () => {
      const driver = new MemoryDriver();
      driver.delete();
      return { driver };
    },
  }),
  { numRuns: 2 },
);
