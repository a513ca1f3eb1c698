import { type Capabilities, QueueError } from '@queueport/core';
import type { ConformanceHarness } from '../harness';
import { type ConformanceProperty, queueProperties } from '../properties';
import { Session } from '../support';
import { PropertyScope } from './property-scope';
import { type ConformanceReport, type PropertyResult, summarize } from './report';
import { CLEANUP_TIMEOUT_MS, DEFAULT_PROPERTY_TIMEOUT_MS, INTERRUPTED, runProperty } from './run-property';

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
  /**
   * Each property's budget, in ms (default 120,000): one that overruns it is stopped, its queues
   * disposed of, and reported failed with `timedOut: true`; the run goes on with the next.
   * The harness probe before the first property has the same budget.
   */
  propertyTimeoutMs?: number;
  /**
   * Stops the run (SIGINT, a CI deadline): the running property is stopped and its queues
   * disposed of, it and every later property are reported skipped with reason `interrupted`,
   * and the partial report is returned with `interrupted: true`.
   */
  signal?: AbortSignal;
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

/**
 * Runs the suite against one harness and returns a structured report; never throws for a failed,
 * overrun or interrupted property. Throws INVALID_ARGUMENT for bad options, and the harness's
 * own error when it cannot open a first queue (or UNAVAILABLE when that overruns the budget).
 */
export async function runConformance(
  harness: ConformanceHarness,
  options: RunConformanceOptions = {},
): Promise<ConformanceReport> {
  const budgetMs = checkBudget(options.propertyTimeoutMs);
  const signal = checkSignal(options.signal);
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const startedAt = new Date();
  const selected = (options.properties ?? queueProperties).filter(
    (p) => !options.only || options.only.length === 0 || options.only.includes(p.id),
  );
  const report = (results: PropertyResult[], caps?: Capabilities): ConformanceReport => ({
    harness: harness.name,
    seed,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    propertyTimeoutMs: budgetMs,
    interrupted: signal?.aborted === true,
    ...(caps ? { capabilities: caps } : {}),
    results,
    summary: summarize(results),
  });
  const notRun = (from: number): PropertyResult[] =>
    selected.slice(from).map((p) => ({
      id: p.id,
      title: p.title,
      status: 'skipped',
      reason: INTERRUPTED,
      runs: 0,
      durationMs: 0,
      seed,
    }));
  const probe = await probeWithin(harness, budgetMs, signal);
  if (!probe) return report(notRun(0));
  const { caps, virtual } = probe;
  options.onProgress?.({ kind: 'start', harness: harness.name, seed, total: selected.length });
  const results: PropertyResult[] = [];
  for (const [index, property] of selected.entries()) {
    if (signal?.aborted) {
      results.push(...notRun(index));
      break;
    }
    options.onProgress?.({
      kind: 'property-start',
      id: property.id,
      title: property.title,
      index,
      total: selected.length,
    });
    const result = await runProperty(harness, property, caps, virtual, {
      seed,
      timeoutMs: budgetMs,
      ...(signal ? { signal } : {}),
      ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    results.push(result);
    options.onProgress?.({ kind: 'property-end', result, index, total: selected.length });
  }
  return report(results, caps);
}

/** The probe under the same budget and signal: undefined when interrupted, its queue disposed of. */
async function probeWithin(
  harness: ConformanceHarness,
  budgetMs: number,
  signal: AbortSignal | undefined,
): Promise<{ caps: Capabilities; virtual: boolean } | undefined> {
  if (signal?.aborted) return undefined;
  const scope = new PropertyScope(harness);
  const probing = probeHarness(scope.harness);
  probing.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const outcome = await Promise.race([
      probing,
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), budgetMs);
      }),
      new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    if (outcome === 'aborted') return undefined;
    if (outcome === 'timeout') {
      throw new QueueError(
        'UNAVAILABLE',
        `${harness.name}: opening a first queue overran the ${budgetMs} ms budget (propertyTimeoutMs)`,
      );
    }
    return outcome;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await scope.stop(CLEANUP_TIMEOUT_MS);
  }
}

/** setTimeout's own ceiling: a longer timer fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function checkBudget(value: unknown): number {
  if (value === undefined) return DEFAULT_PROPERTY_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `propertyTimeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`,
      { details: { field: 'propertyTimeoutMs' } },
    );
  }
  return value;
}

function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) {
    throw new QueueError('INVALID_ARGUMENT', 'signal must be an AbortSignal', {
      details: { field: 'signal' },
    });
  }
  return value;
}
