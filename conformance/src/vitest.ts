import type { Capabilities } from '@queueport/core';
import { beforeAll, describe, it } from 'vitest';
import type { ConformanceHarness } from './harness';
import { type ConformanceProperty, queueProperties } from './properties';
import {
  CLEANUP_TIMEOUT_MS,
  DEFAULT_PROPERTY_TIMEOUT_MS,
  formatFailure,
  formatNotes,
  probeHarness,
  runProperty,
} from './runner';

export interface DescribeConformanceOptions {
  seed?: number;
  numRuns?: number;
  properties?: readonly ConformanceProperty[];
  /**
   * Each property's budget, as `runConformance` has it (default 120,000 ms): past it the
   * property is stopped, its queues disposed of, and the test fails naming the budget.
   */
  propertyTimeoutMs?: number;
  /** @deprecated The old name of `propertyTimeoutMs`. */
  timeoutMs?: number;
}

/** vitest's own timeout stays behind the budget, so the budget's message is the one shown. */
const VITEST_MARGIN_MS = 5_000;

/**
 * The whole suite as vitest tests, one per property:
 *
 *   describeConformance('my-driver', virtualTimeHarness('my-driver', (clock) => new MyDriver({ clock })));
 *
 * A property the manifest rules out is reported as skipped with its reason. A check a property
 * could not make on this harness (a null depth, say) is printed to stderr and annotated on the
 * test. The seed is in the failure message, and QUEUEPORT_SEED replays it.
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
  const budgetMs = options.propertyTimeoutMs ?? options.timeoutMs ?? DEFAULT_PROPERTY_TIMEOUT_MS;
  describe(`conformance: ${name}`, () => {
    let probe: { caps: Capabilities; virtual: boolean };
    beforeAll(async () => {
      probe = await probeHarness(harness);
    }, budgetMs);
    for (const property of options.properties ?? queueProperties) {
      it(
        `${property.id}: ${property.title}`,
        async (context) => {
          const result = await runProperty(harness, property, probe.caps, probe.virtual, {
            seed,
            timeoutMs: budgetMs,
            // Both from vitest 3.2 on; the peer range starts at 3.
            ...(context.signal ? { signal: context.signal } : {}),
            ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
            ...(path === undefined ? {} : { path }),
          });
          const notes = formatNotes(result);
          if (notes.length > 0) {
            // The default reporter shows a test's stderr, not its annotations: say it in both.
            console.warn(`${name} ${property.id}:\n  ${notes.join('\n  ')}`);
            if (typeof context.annotate === 'function') {
              for (const note of notes) await context.annotate(note, 'not checked');
            }
          }
          if (result.status === 'skipped') context.skip(result.reason);
          if (result.status === 'failed') throw new Error(formatFailure(result, name, 'vitest'));
        },
        budgetMs + CLEANUP_TIMEOUT_MS + VITEST_MARGIN_MS,
      );
    }
  });
}
