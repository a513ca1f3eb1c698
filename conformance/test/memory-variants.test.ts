import { runConformance, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';

// The other branches of the manifest: fractional delays, dedupe while retained, single-consumer
// order, and a driver that declares neither dedupe nor ordering.
describeConformance(
  'memory (fractional delays, dedupe while retained)',
  virtualTimeHarness(
    'memory',
    (clock) => new MemoryDriver({ clock, fractionalDelay: true, dedupe: { kind: 'while-retained' } }),
  ),
);

describeConformance(
  'memory (single-consumer order)',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock, ordering: 'fifo-single-consumer' })),
);

describe('a manifest that rules properties out', () => {
  it('reports them skipped with the reason, never passed', async () => {
    const harness = virtualTimeHarness(
      'memory',
      (clock) => new MemoryDriver({ clock, dedupe: { kind: 'none' }, ordering: 'none' }),
    );
    const report = await runConformance(harness, { numRuns: 5 });
    const skipped = report.results.filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => r.id).sort()).toEqual([
      'admin-surface',
      'connection-drop',
      'dedupe',
      'dedupe-window',
      'missing-queue',
      'ordering',
    ]);
    for (const result of skipped)
      expect(result.reason).toMatch(/declares no|opens no missing queue|no admin surface|cannot drop/);
    expect(report.summary).toEqual({ passed: report.results.length - 6, failed: 0, skipped: 6 });
  });
});
