import type { AnyQueue, Envelope } from '@queueport/core';
import type { Ledger, LedgerRecord } from '@queueport/ledger';
import { budgetOf } from './budget';
import type { PayloadLoader } from './payload-loader';
import { type ReconcileClocks, systemReconcileClocks } from './reconcile-clocks';
import { emptyResult, pendingOf, type ReconcileResult } from './reconcile-result';
import { parseReconcileWork } from './reconcile-work';
import { republishRecords } from './republish-inline';
import { reconcileOn } from './run-reconcile';
import { classify } from './survey';

export interface ReconcileWorkerOptions {
  ledger: Ledger;
  /** Where the events are republished. */
  queue: AnyQueue;
  /** Where a scan continuation enqueues its units (the queue the work came from). */
  workQueue: AnyQueue;
  loadPayload: PayloadLoader;
  /** One message's budget. Default 60000. */
  budgetMs?: number;
  progress?: (line: string) => void;
}

/**
 * The worker's side of `enqueueScan`: handles one `queueport.reconcile.*` envelope. A unit's
 * events are re-read from the ledger first, so one a worker settled since is left alone. Throws
 * for anything else, so the consumer gives the message back instead of dropping it.
 */
export function handleReconcileMessage(
  envelope: Pick<Envelope, 'type' | 'payload'>,
  options: ReconcileWorkerOptions,
): Promise<ReconcileResult> {
  return handleReconcileMessageOn(systemReconcileClocks, envelope, options);
}

/** `handleReconcileMessage` on the given clocks: for this package's tests, not exported. */
export async function handleReconcileMessageOn(
  clocks: ReconcileClocks,
  envelope: Pick<Envelope, 'type' | 'payload'>,
  options: ReconcileWorkerOptions,
): Promise<ReconcileResult> {
  const work = parseReconcileWork(envelope);
  const budgetMs = options.budgetMs ?? 60_000;
  const progress = options.progress ?? (() => {});
  if (work.kind === 'scan') {
    return reconcileOn(clocks, {
      ledger: options.ledger,
      queue: options.queue,
      loadPayload: options.loadPayload,
      budgetMs,
      progress,
      olderThanSeconds: work.olderThanSeconds,
      batch: work.batch,
      enqueueScan: options.workQueue,
      // A run id of its own: its units' event ids must not repeat the first run's, which the
      // provider's dedupe would absorb.
      // Listed for a person by the run that started the scan; a continuation has no one to show them to.
      maxAmbiguous: 0,
      ...(work.after !== null ? { after: work.after } : {}),
    });
  }
  const budget = budgetOf(budgetMs, clocks.now);
  const result = emptyResult(work.run, 'inline', budgetMs);
  const records: LedgerRecord[] = [];
  for (const eventId of work.eventIds) {
    const record = await options.ledger.get(eventId);
    if (record?.state !== 'processing') continue;
    const verdict = classify(record, clocks.wallClock());
    if (verdict === 'leased') result.leased++;
    else if (verdict === 'scheduled') result.scheduled++;
    else records.push(record);
  }
  result.scanComplete = true;
  result.eligible = records.map((record) => record.eventId);
  await republishRecords(
    records,
    { queue: options.queue, loadPayload: options.loadPayload, batch: Math.max(1, records.length) },
    budget,
    result,
    () => {},
  );
  result.pending = pendingOf(result);
  result.durationMs = Math.round(budget.now() - budget.started);
  return result;
}
