import { type Capabilities, isQueueError } from '@queueport/core';
import fc from 'fast-check';
import type { ConformanceHarness } from '../harness';
import type { ConformanceProperty } from '../properties';
import { show } from '../support';
import { PropertyScope } from './property-scope';
import type { PropertyResult } from './report';

export interface PropertyRunOptions {
  seed: number;
  numRuns?: number;
  /** Replays one failing case found earlier (from a report's `path`). */
  path?: string;
  /** The property's budget: past it, it is stopped and fails. Default `DEFAULT_PROPERTY_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Stops the property (reported skipped, reason `interrupted`); its queues are still disposed of. */
  signal?: AbortSignal;
}

/** Two minutes: ample for every property on a healthy provider at the default runs. */
export const DEFAULT_PROPERTY_TIMEOUT_MS = 120_000;
/** How long disposing of a stopped property's queues may take before the runner moves on. */
export const CLEANUP_TIMEOUT_MS = 30_000;
export const INTERRUPTED = 'interrupted';

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
    dropConnection: harness.dropsConnection === true,
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
  if (options.signal?.aborted) return interrupted(base, 0, 0);
  const budgetMs = options.timeoutMs ?? DEFAULT_PROPERTY_TIMEOUT_MS;
  const started = performance.now();
  const scope = new PropertyScope(harness);
  const checking = fc.check(property.build(scope.harness), {
    seed: options.seed,
    numRuns,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  const ending = await firstOf(checking, budgetMs, options.signal);
  // Also after a normal end: a property that left a queue open must not leak it.
  const cleaned = await scope.stop(CLEANUP_TIMEOUT_MS);
  const durationMs = Math.round(performance.now() - started);
  const notes = [
    ...scope.notes,
    ...(cleaned ? [] : [`its queues were not all disposed of within ${CLEANUP_TIMEOUT_MS} ms`]),
  ];
  const withNotes = notes.length > 0 ? { notes } : {};
  if (ending.kind === 'aborted') return { ...interrupted(base, scope.opened, durationMs), ...withNotes };
  if (ending.kind === 'timeout') {
    return {
      ...base,
      status: 'failed',
      timedOut: true,
      runs: scope.opened,
      durationMs,
      counterexample: 'none',
      error: `${property.id} overran its budget of ${budgetMs} ms (propertyTimeoutMs) and was stopped after ${durationMs} ms, its queues disposed of; raise propertyTimeoutMs if the provider is this slow`,
      ...withNotes,
    };
  }
  const details = ending.details;
  if (!details.failed) {
    return { ...base, status: 'passed', runs: details.numRuns, durationMs, ...withNotes };
  }
  return {
    ...base,
    status: 'failed',
    runs: details.numRuns,
    durationMs,
    ...withNotes,
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

type Ending<T> = { kind: 'done'; details: T } | { kind: 'timeout' } | { kind: 'aborted' };

/** Whichever comes first: the check's end, its budget, or the signal. */
async function firstOf<T>(checking: Promise<T>, budgetMs: number, signal?: AbortSignal): Promise<Ending<T>> {
  // A check still going after a stop ends on its own (its next queue is refused); its outcome
  // no longer matters, but must not surface as an unhandled rejection.
  checking.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      checking.then((details): Ending<T> => ({ kind: 'done', details })),
      new Promise<Ending<T>>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), budgetMs);
      }),
      new Promise<Ending<T>>((resolve) => {
        if (!signal) return;
        onAbort = () => resolve({ kind: 'aborted' });
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function interrupted(
  base: Pick<PropertyResult, 'id' | 'title' | 'seed'>,
  runs: number,
  durationMs: number,
): PropertyResult {
  return { ...base, status: 'skipped', reason: INTERRUPTED, runs, durationMs };
}
