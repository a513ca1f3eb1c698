import type { Capabilities } from '@queueport/core';
import { beforeAll, describe, it } from 'vitest';
import type { ConformanceHarness } from './harness';
import { type ConformanceProperty, queueProperties } from './properties';
import { formatFailure, probeHarness, runProperty } from './runner';

export interface DescribeConformanceOptions {
  seed?: number;
  numRuns?: number;
  properties?: readonly ConformanceProperty[];
  /** Per-property timeout; real providers need minutes. */
  timeoutMs?: number;
}

/**
 * The whole suite as vitest tests, one per property:
 *
 *   describeConformance('my-driver', virtualTimeHarness('my-driver', (clock) => new MyDriver({ clock })));
 *
 * A property the manifest rules out is reported as skipped with its reason. The seed is in the
 * failure message, and QUEUEPORT_SEED replays it.
 */
export function describeConformance(
  name: string,
  harness: ConformanceHarness,
  options: DescribeConformanceOptions = {},
): void {
  const envSeed = process.env.QUEUEPORT_SEED ? Number(process.env.QUEUEPORT_SEED) : undefined;
  const seed = options.seed ?? envSeed ?? Math.floor(Math.random() * 0x7fffffff);
  // A shrink path replays one case; it belongs to the seed it was printed with.
  const path = envSeed !== undefined ? process.env.QUEUEPORT_PATH || undefined : undefined;
  describe(`conformance: ${name}`, () => {
    let probe: { caps: Capabilities; virtual: boolean };
    beforeAll(async () => {
      probe = await probeHarness(harness);
    });
    for (const property of options.properties ?? queueProperties) {
      it(
        `${property.id}: ${property.title}`,
        async (context) => {
          const result = await runProperty(harness, property, probe.caps, probe.virtual, {
            seed,
            ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
            ...(path === undefined ? {} : { path }),
          });
          if (result.status === 'skipped') context.skip(result.reason);
          if (result.status === 'failed') throw new Error(formatFailure(result, name, 'vitest'));
        },
        options.timeoutMs ?? 300_000,
      );
    }
  });
}
