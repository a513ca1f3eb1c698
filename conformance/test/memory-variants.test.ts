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

// A provider that ends holds on its own and bounds attributes apart from the body, as RabbitMQ
// does: the max-hold property runs, and attribute-limits fills to the attribute bound and
// proves one byte past it refused.
describeConformance(
  'memory (a 600 s maximum hold, 2 KB of attributes)',
  virtualTimeHarness(
    'memory',
    (clock) => new MemoryDriver({ clock, maxHoldSeconds: 600, maxAttributeBytes: 2048 }),
  ),
);

describeConformance(
  'memory (a hold past the lease maximum)',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock, maxHoldSeconds: 43_200 })),
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
      'max-hold',
      'missing-queue',
      'ordering',
    ]);
    for (const result of skipped)
      expect(result.reason).toMatch(/declares no|opens no missing queue|no admin surface|cannot drop/);
    expect(report.summary).toEqual({ passed: report.results.length - 7, failed: 0, skipped: 7 });
  });
});
