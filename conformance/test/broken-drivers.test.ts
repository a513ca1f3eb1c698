import {
  type ConformanceHarness,
  queueProperties,
  realTimeHarness,
  runConformance,
  virtualTimeHarness,
} from '@queueport/conformance';
import { describe, expect, it } from 'vitest';
import { type BrokenDriverCase, brokenDrivers } from './broken-drivers';

function harnessOf(broken: BrokenDriverCase): ConformanceHarness {
  const drops = broken.dropsConnection ? { dropsConnection: true } : {};
  if (broken.realTime) {
    const realTime = broken.realTime;
    return realTimeHarness(broken.name, async () => realTime.create(), drops);
  }
  const missing = broken.missing;
  return virtualTimeHarness(broken.name, (clock) => broken.create(clock), {
    ...drops,
    ...(missing ? { createMissingDriver: (clock) => missing(clock) } : {}),
    ...(broken.caughtBy === 'admin-surface' ? { inspects: true } : {}),
  });
}

// The suite is only as good as the bugs it finds: each deliberately broken driver must fail the
// property written for its defect, with a counterexample a person can read and a replay line.
describe('the suite catches broken drivers', () => {
  for (const broken of brokenDrivers) {
    it(`${broken.caughtBy} fails a driver that ${broken.name}`, async () => {
      const report = await runConformance(harnessOf(broken), {
        only: [broken.caughtBy],
        numRuns: broken.realTime?.numRuns ?? 60,
      });
      const [result] = report.results;
      expect(result?.status, result?.reason).toBe('failed');
      expect(result?.counterexample).toBeTruthy();
      expect(result?.counterexample).not.toBe('none');
      expect(result?.error).toBeTruthy();
      expect(result?.path).toMatch(/^\d+(:\d+)*$/);
    });
  }
});

// A new check earns its place by catching what nothing before it did: these defects pass every
// other property (or, on real time, those that come closest).
describe('only the new check catches its defect', () => {
  for (const broken of brokenDrivers.filter((b) => b.passes)) {
    it(`a driver that ${broken.name} passes all but ${broken.caughtBy}`, async () => {
      const others =
        broken.passes === 'all'
          ? queueProperties.map((p) => p.id).filter((id) => id !== broken.caughtBy)
          : broken.passes!;
      const report = await runConformance(harnessOf(broken), {
        only: others,
        numRuns: broken.realTime ? 2 : 25,
        seed: 42,
      });
      const failed = report.results.filter((r) => r.status === 'failed');
      expect(failed.map((r) => `${r.id}: ${r.error}`)).toEqual([]);
      expect(report.summary.passed).toBeGreaterThan(0);
    }, 240_000);
  }
});
