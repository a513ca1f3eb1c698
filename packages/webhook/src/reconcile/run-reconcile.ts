import { randomUUID } from 'node:crypto';
import { type AnyQueue, QueueError } from '@queueport/core';
import { type Ledger, MAX_SCAN_LIMIT } from '@queueport/ledger';
import { budgetOf } from './budget';
import { enqueueUnits } from './enqueue-units';
import type { PayloadLoader } from './payload-loader';
import { type ReconcileClocks, systemReconcileClocks } from './reconcile-clocks';
import { emptyResult, pendingOf, type ReconcileResult } from './reconcile-result';
import { republishRecords } from './republish-inline';
import { listAmbiguous, surveyPending } from './survey';

export interface ReconcileOptions {
  ledger: Ledger;
  /** Where stuck events are republished: the queue their delivery workers consume. */
  queue: AnyQueue;
  /** Needed to republish inline; with `enqueueScan` the workers load payloads. */
  loadPayload?: PayloadLoader;
  /** Pending rows last updated longer ago than this are stuck. */
  olderThanSeconds: number;
  /** Events per unit: loaded together, then published in one batch. At most `MAX_SCAN_LIMIT`. */
  batch: number;
  /** The run never takes longer than this, counted from `startedAt`. */
  budgetMs: number;
  /** Instead of republishing inline, hand the scan to workers as messages on this queue. */
  enqueueScan?: AnyQueue;
  /** Resume after this event id (a scan continuation's cursor). */
  after?: string;
  /**
   * When the budget began, as `performance.now()` read it (a command's start, so its setup
   * counts too). Default: the call.
   */
  startedAt?: number;
  /** Names the run in the work it hands to workers. Random by default. */
  runId?: string;
  /** The most pending rows one run looks at (memory). Default 100000. */
  maxSurvey?: number;
  /** The most ambiguous rows listed. Default 1000; 0 lists none. */
  maxAmbiguous?: number;
  progress?: (line: string) => void;
}

/**
 * Finds the stuck events (pending rows older than the bound) and republishes them in units, or
 * hands them to workers as queue messages, never past the time budget: the clock is read before
 * every unit, a unit is not begun unless the longest one so far still fits, and payload loads
 * that are not back by the reserve are left pending rather than waited for.
 */
export function runReconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  return reconcileOn(systemReconcileClocks, options);
}

/** `runReconcile` on the given clocks: for this package's own callers and tests, not exported. */
export async function reconcileOn(
  clocks: ReconcileClocks,
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  checkOptions(options);
  const budget = budgetOf(options.budgetMs, clocks.now, options.startedAt);
  const progress = options.progress ?? (() => {});
  const result = emptyResult(
    options.runId ?? randomUUID().slice(0, 8),
    options.enqueueScan ? 'enqueue' : 'inline',
    options.budgetMs,
  );

  // First, and in a small share: a person needs this list whatever becomes of the rest.
  const ambiguous = await listAmbiguous(options.ledger, options.maxAmbiguous ?? 1_000, budget);
  result.ambiguous = ambiguous.records;
  result.ambiguousComplete = ambiguous.complete;

  const survey = await surveyPending(
    {
      ledger: options.ledger,
      olderThanSeconds: options.olderThanSeconds,
      batch: options.batch,
      after: options.after,
      maxRows: options.maxSurvey ?? 100_000,
      forWorkers: options.enqueueScan !== undefined,
    },
    budget,
    clocks.wallClock,
  );
  result.scanComplete = survey.complete;
  result.leased = survey.leased;
  result.scheduled = survey.scheduled;
  result.eligible = survey.eligible.map((record) => record.eventId);
  progress(
    `reconcile: ${result.eligible.length} stuck events${survey.complete ? '' : ' so far (the scan was cut short)'}`,
  );

  if (options.enqueueScan) {
    await enqueueUnits(
      {
        workQueue: options.enqueueScan,
        olderThanSeconds: options.olderThanSeconds,
        batch: options.batch,
        after: options.after,
      },
      survey,
      budget,
      result,
    );
  } else {
    // checkOptions refused an inline run without a loader.
    const loadPayload = options.loadPayload!;
    await republishRecords(
      survey.eligible,
      { queue: options.queue, loadPayload, batch: options.batch },
      budget,
      result,
      progress,
    );
  }
  result.pending = pendingOf(result);
  result.durationMs = Math.round(budget.now() - budget.started);
  return result;
}

function checkOptions(options: ReconcileOptions): void {
  const whole = (value: number, min: number) => Number.isSafeInteger(value) && value >= min;
  if (!whole(options.batch, 1) || options.batch > MAX_SCAN_LIMIT) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `reconcile: batch must be a whole number from 1 to ${MAX_SCAN_LIMIT}`,
    );
  }
  if (!whole(options.budgetMs, 1))
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: budgetMs must be ≥ 1');
  if (!whole(options.olderThanSeconds, 0)) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: olderThanSeconds must be a whole number ≥ 0');
  }
  if (options.maxSurvey !== undefined && !whole(options.maxSurvey, 1)) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: maxSurvey must be a whole number ≥ 1');
  }
  if (!options.enqueueScan && !options.loadPayload) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: republishing inline needs loadPayload');
  }
}
