import {
  type ConformanceProperty,
  defineProperty,
  formatReport,
  runConformance,
  virtualTimeHarness,
  withSession,
} from '@queueport/conformance';
import { MemoryDriver } from '@queueport/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** A memory harness that counts the queues it made and the ones disposed of. */
function countingHarness() {
  const counts = { opened: 0, disposed: 0 };
  const harness = virtualTimeHarness('counting', (clock) => {
    counts.opened++;
    return {
      driver: new MemoryDriver({ clock }),
      dispose: async () => {
        counts.disposed++;
      },
    };
  });
  return { harness, counts };
}

/** Opens a queue and waits on `until` (forever by default), as a property stuck in a provider call. */
function stuck(id: string, until: Promise<void> = new Promise(() => {})): ConformanceProperty {
  return defineProperty({
    id,
    title: 'never ends',
    build: (harness) => fc.asyncProperty(fc.constant(0), () => withSession(harness, () => until)),
  });
}

const quick = defineProperty({
  id: 'quick',
  title: 'ends at once',
  build: (harness) => fc.asyncProperty(fc.constant(0), () => withSession(harness, async () => {})),
});

describe('the per-property budget', () => {
  it('fails a property that overruns it, naming the budget and the property, disposes of its queue, and goes on', async () => {
    const { harness, counts } = countingHarness();
    const report = await runConformance(harness, {
      properties: [stuck('stuck'), quick],
      propertyTimeoutMs: 300,
      numRuns: 1,
    });
    const [overran, next] = report.results;
    expect(overran).toMatchObject({ id: 'stuck', status: 'failed', timedOut: true });
    expect(overran!.error).toContain('300 ms');
    expect(overran!.error).toContain('propertyTimeoutMs');
    expect(overran!.error).toMatch(/^stuck /);
    expect(overran!.durationMs).toBeGreaterThanOrEqual(300);
    expect(next).toMatchObject({ id: 'quick', status: 'passed' });
    expect(counts.disposed).toBe(counts.opened);
    expect(report.propertyTimeoutMs).toBe(300);
    expect(report.interrupted).toBe(false);
    expect(formatReport(report)).toMatch(/1 passed, 1 failed, 0 skipped in \d+\.\d s$/);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '5'])(
    'refuses a budget of %s with INVALID_ARGUMENT',
    async (budget) => {
      const { harness } = countingHarness();
      await expect(
        runConformance(harness, { propertyTimeoutMs: budget as number, properties: [quick] }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'propertyTimeoutMs' } });
    },
  );

  it('refuses a signal that is not an AbortSignal', async () => {
    const { harness } = countingHarness();
    await expect(
      runConformance(harness, { signal: { aborted: false } as AbortSignal, properties: [quick] }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'signal' } });
  });
});

describe('an interrupted run', () => {
  it('stops the running property, reports it and the rest as interrupted, disposes of its queues, and returns', async () => {
    const { harness, counts } = countingHarness();
    const abort = new AbortController();
    let reached!: () => void;
    const started = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const waiting = defineProperty({
      id: 'waiting',
      title: 'waits',
      build: (h) =>
        fc.asyncProperty(fc.constant(0), () =>
          withSession(h, async () => {
            reached();
            await new Promise(() => {});
          }),
        ),
    });
    void started.then(() => abort.abort('SIGINT'));
    const report = await runConformance(harness, {
      properties: [quick, waiting, quick, quick].map((p, i) => ({ ...p, id: `${p.id}-${i}` })),
      signal: abort.signal,
      numRuns: 1,
    });
    expect(report.interrupted).toBe(true);
    expect(report.results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['quick-0', 'passed', undefined],
      ['waiting-1', 'skipped', 'interrupted'],
      ['quick-2', 'skipped', 'interrupted'],
      ['quick-3', 'skipped', 'interrupted'],
    ]);
    expect(counts.disposed).toBe(counts.opened);
    expect(formatReport(report)).toContain('(interrupted: 3 not run)');
  });

  it('runs nothing when the signal is aborted already', async () => {
    const { harness, counts } = countingHarness();
    const report = await runConformance(harness, { properties: [quick], signal: AbortSignal.abort() });
    expect(report.results).toMatchObject([{ id: 'quick', status: 'skipped', reason: 'interrupted' }]);
    expect(counts.opened).toBe(0);
  });
});
