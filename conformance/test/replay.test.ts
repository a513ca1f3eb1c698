import {
  queueProperties,
  replayLine,
  runConformance,
  runProperty,
  virtualTimeHarness,
} from '@queueport/conformance';
import { describe, expect, it } from 'vitest';
import { brokenDrivers } from './broken-drivers';

describe('a printed replay', () => {
  const broken = brokenDrivers.find((b) => b.caughtBy === 'delay-bounds')!;
  const harness = virtualTimeHarness(broken.name, (clock) => broken.create(clock));

  it('runs the same failing case again from its seed and path', async () => {
    const report = await runConformance(harness, { only: ['delay-bounds'], numRuns: 60 });
    const failed = report.results[0]!;
    expect(failed.status).toBe('failed');
    const property = queueProperties.find((p) => p.id === 'delay-bounds')!;
    const again = await runProperty(harness, property, report.capabilities!, true, {
      seed: failed.seed,
      path: failed.path!,
    });
    expect(again.status).toBe('failed');
    expect(again.runs).toBe(1);
    expect(again.counterexample).toBe(failed.counterexample);
  });

  it('reads as environment variables and a test filter under vitest, as flags for the CLI', () => {
    const result = {
      id: 'dedupe',
      title: '',
      status: 'failed' as const,
      runs: 3,
      durationMs: 1,
      seed: 42,
      path: '2:1',
    };
    expect(replayLine(result, 'vitest')).toBe(
      "QUEUEPORT_SEED=42 QUEUEPORT_PATH=2:1 npx vitest run -t 'dedupe:'",
    );
    expect(replayLine(result, 'cli')).toBe('--seed 42 --path 2:1 --only dedupe');
  });
});
