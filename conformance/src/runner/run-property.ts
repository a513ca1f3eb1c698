import { type Capabilities, isQueueError } from '@queueport/core';
import fc from 'fast-check';
import type { ConformanceHarness } from '../harness';
import type { ConformanceProperty } from '../properties';
import { show } from '../support';
import type { PropertyResult } from './report';

export interface PropertyRunOptions {
  seed: number;
  numRuns?: number;
  /** Replays one failing case found earlier (from a report's `path`). */
  path?: string;
}

const MAX_COUNTEREXAMPLE_CHARS = 2000;

export async function runProperty(
  harness: ConformanceHarness,
  property: ConformanceProperty,
  caps: Capabilities,
  virtual: boolean,
  options: PropertyRunOptions,
): Promise<PropertyResult> {
  const base = { id: property.id, title: property.title, seed: options.seed };
  const reason = property.skipReason?.(caps, {
    virtual,
    maxRealWaitSeconds: harness.timing?.maxRealWaitSeconds ?? 3,
    missingQueue: harness.createMissingQueue !== undefined,
    inspect: harness.inspects === true,
  });
  if (reason) return { ...base, status: 'skipped', reason, runs: 0, durationMs: 0 };
  const numRuns =
    options.numRuns ??
    harness.numRuns ??
    (virtual ? (property.runs?.virtual ?? 100) : (property.runs?.real ?? 8));
  if (numRuns <= 0)
    return {
      ...base,
      status: 'skipped',
      reason: 'no runs configured for this clock',
      runs: 0,
      durationMs: 0,
    };
  const started = performance.now();
  const details = await fc.check(property.build(harness), {
    seed: options.seed,
    numRuns,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  const durationMs = Math.round(performance.now() - started);
  if (!details.failed) {
    return { ...base, status: 'passed', runs: details.numRuns, durationMs };
  }
  return {
    ...base,
    status: 'failed',
    runs: details.numRuns,
    durationMs,
    ...(details.counterexamplePath === null ? {} : { path: details.counterexamplePath }),
    counterexample: truncate(showCounterexample(details.counterexample)),
    error: describeError(details.errorInstance),
  };
}

/** fast-check wraps the inputs in a tuple; one generated record reads better unwrapped. */
function showCounterexample(counterexample: unknown): string {
  if (counterexample === null || counterexample === undefined) return 'none';
  return show(
    Array.isArray(counterexample) && counterexample.length === 1 ? counterexample[0] : counterexample,
  );
}

function describeError(error: unknown): string {
  if (isQueueError(error)) return `unexpected ${error.code}: ${error.message}`;
  if (error instanceof Error)
    return error.name === 'ConformanceViolation' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

function truncate(text: string): string {
  return text.length <= MAX_COUNTEREXAMPLE_CHARS ? text : `${text.slice(0, MAX_COUNTEREXAMPLE_CHARS)}…`;
}
