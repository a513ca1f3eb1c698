import type { Capabilities } from '@queueport/core';
import type { ConformanceHarness } from '../harness';
import { type ConformanceProperty, queueProperties } from '../properties';
import { Session } from '../support';
import { type ConformanceReport, type PropertyResult, summarize } from './report';
import { runProperty } from './run-property';

export interface RunConformanceOptions {
  /** One seed for the whole run; printed in the report so any failure replays. Random by default. */
  seed?: number;
  numRuns?: number;
  /** Property ids to run; all by default. */
  only?: readonly string[];
  /** Replay path from a failed result; use with `seed` and a single `only`. */
  path?: string;
  properties?: readonly ConformanceProperty[];
  onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { kind: 'start'; harness: string; seed: number; total: number }
  | { kind: 'property-start'; id: string; title: string; index: number; total: number }
  | { kind: 'property-end'; result: PropertyResult; index: number; total: number };

/** What a property run needs to know about a harness before it starts: its manifest and clock. */
export async function probeHarness(
  harness: ConformanceHarness,
): Promise<{ caps: Capabilities; virtual: boolean }> {
  const session = await Session.open(harness);
  try {
    return { caps: session.caps, virtual: session.timing.virtual };
  } finally {
    await session.close();
  }
}

/** Runs the suite against one harness and returns a structured report; never throws for a failed property. */
export async function runConformance(
  harness: ConformanceHarness,
  options: RunConformanceOptions = {},
): Promise<ConformanceReport> {
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const startedAt = new Date();
  const selected = (options.properties ?? queueProperties).filter(
    (p) => !options.only || options.only.length === 0 || options.only.includes(p.id),
  );
  const { caps, virtual } = await probeHarness(harness);
  options.onProgress?.({ kind: 'start', harness: harness.name, seed, total: selected.length });
  const results: PropertyResult[] = [];
  for (const [index, property] of selected.entries()) {
    options.onProgress?.({
      kind: 'property-start',
      id: property.id,
      title: property.title,
      index,
      total: selected.length,
    });
    const result = await runProperty(harness, property, caps, virtual, {
      seed,
      ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    results.push(result);
    options.onProgress?.({ kind: 'property-end', result, index, total: selected.length });
  }
  return {
    harness: harness.name,
    seed,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    capabilities: caps,
    results,
    summary: summarize(results),
  };
}
