import { runConformance, virtualTimeHarness } from '@queueport/conformance';
import type { Ledger } from '@queueport/ledger';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import {
  crashScenarioArb,
  crashWindowProperties,
  type LedgerFactory,
  runCrashScenario,
} from '@queueport/webhook/conformance';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const harness = virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock }));

/** Wraps each run's ledger so one of its promises is broken. */
function breakLedger(change: (ledger: Ledger) => Partial<Ledger>): LedgerFactory {
  return async (clock) => {
    const { ledger, dispose } = await temporarySqliteLedger(clock);
    const broken: Ledger = Object.assign(Object.create(null), {
      claim: ledger.claim.bind(ledger),
      complete: ledger.complete.bind(ledger),
      fail: ledger.fail.bind(ledger),
      release: ledger.release.bind(ledger),
      get: ledger.get.bind(ledger),
      scanPending: ledger.scanPending.bind(ledger),
      scanAmbiguous: ledger.scanAmbiguous.bind(ledger),
      prune: ledger.prune.bind(ledger),
      close: ledger.close.bind(ledger),
      ...change(ledger),
    });
    return { ledger: broken, dispose };
  };
}

async function failureOf(id: string, factory: LedgerFactory) {
  const properties = crashWindowProperties(factory).filter((p) => p.id === id);
  const report = await runConformance(harness, { properties, numRuns: 60, seed: 7 });
  return report.results[0];
}

describe('the crash-window checker catches broken delivery', () => {
  it('finds lost events when the ledger gives up on every retry', async () => {
    const result = await failureOf(
      'crash-window',
      breakLedger((ledger) => ({ release: (request) => ledger.fail(request) })),
    );
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/[1-9]\d* lost/);
  });

  it('finds duplicates the reconciliation report does not flag when ambiguity is never recorded', async () => {
    const result = await failureOf(
      'crash-window-ambiguity',
      breakLedger(() => ({ scanAmbiguous: async () => [] })),
    );
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/does not flag/);
  });

  it('generates scenarios that really duplicate effects at a receiver that ignores the key', async () => {
    // Coverage, not correctness: without crashes in the window the properties above would pass
    // vacuously. A fixed seed keeps this deterministic.
    const scenarios = fc.sample(crashScenarioArb, { numRuns: 40, seed: 11 });
    let duplicated = 0;
    for (const scenario of scenarios) {
      const outcome = await runCrashScenario(harness, temporarySqliteLedger, scenario, 'ignores-key');
      duplicated += [...outcome.verdicts.values()].filter((v) => v === 'duplicated').length;
    }
    expect(duplicated).toBeGreaterThan(0);
  });
});
