import { runConformance, virtualTimeHarness } from '@queueport/conformance';
import { describe, expect, it } from 'vitest';
import { brokenDrivers } from './broken-drivers';

// The suite is only as good as the bugs it finds: each deliberately broken driver must fail the
// property written for its defect, with a counterexample a person can read and a replay line.
describe('the suite catches broken drivers', () => {
  for (const broken of brokenDrivers) {
    it(`${broken.caughtBy} fails a driver that ${broken.name}`, async () => {
      const missing = broken.missing;
      const harness = virtualTimeHarness(broken.name, (clock) => broken.create(clock), {
        ...(missing ? { createMissingDriver: (clock) => missing(clock) } : {}),
        ...(broken.caughtBy === 'admin-surface' ? { inspects: true } : {}),
      });
      const report = await runConformance(harness, { only: [broken.caughtBy], numRuns: 60 });
      const [result] = report.results;
      expect(result?.status).toBe('failed');
      expect(result?.counterexample).toBeTruthy();
      expect(result?.counterexample).not.toBe('none');
      expect(result?.error).toBeTruthy();
      expect(result?.path).toMatch(/^\d+(:\d+)*$/);
    });
  }
});
