import type { LedgerRecord } from '@queueport/ledger';

export interface ReconcileResult {
  runId: string;
  mode: 'inline' | 'enqueue';
  budgetMs: number;
  durationMs: number;
  /** Whether the scan reached the end of the pending rows (else more may be stuck than `eligible` says). */
  scanComplete: boolean;
  /** Pending rows older than the bound, held by no live lease, with no retry still scheduled. */
  eligible: string[];
  republished: string[];
  /** Published, but the provider said it absorbed them as repeats: it holds them already. */
  absorbed: string[];
  /** The loader has no such event. */
  missing: string[];
  /** The loaded payload does not match the digest the ledger recorded: never republished. */
  mismatched: string[];
  /** The loader threw, the envelope was refused, or the publish failed. */
  failed: { eventId: string; error: string }[];
  /** Handing work to the workers failed: the ids it carried stay pending, for the next run. */
  handoffErrors: string[];
  /** Eligible, but neither republished nor handed to workers within the budget. */
  pending: string[];
  /** Handed to workers as republish units (`enqueueScan`). */
  enqueued: string[];
  /** The scan continuation's cursor, when one was enqueued (null: from the start). */
  continuation: { after: string | null } | undefined;
  units: number;
  /** The longest inline unit (loads and publish), in ms: what one more unit would have cost. */
  longestUnitMs: number;
  /** Stale rows under a live lease: a worker has them now. */
  leased: number;
  /** Stale rows whose next retry is still due: the queue holds them, delayed. */
  scheduled: number;
  /** Rows flagged ambiguous (any state), for a person: the receiver may have acted twice. */
  ambiguous: LedgerRecord[];
  ambiguousComplete: boolean;
}

export function emptyResult(runId: string, mode: ReconcileResult['mode'], budgetMs: number): ReconcileResult {
  return {
    runId,
    mode,
    budgetMs,
    durationMs: 0,
    scanComplete: false,
    eligible: [],
    republished: [],
    absorbed: [],
    missing: [],
    mismatched: [],
    failed: [],
    handoffErrors: [],
    pending: [],
    enqueued: [],
    continuation: undefined,
    units: 0,
    longestUnitMs: 0,
    leased: 0,
    scheduled: 0,
    ambiguous: [],
    ambiguousComplete: true,
  };
}

/** The eligible events the run reached no verdict on: the next run's. */
export function pendingOf(result: ReconcileResult): string[] {
  const accounted = new Set([
    ...result.republished,
    ...result.absorbed,
    ...result.missing,
    ...result.mismatched,
    ...result.failed.map((f) => f.eventId),
    ...result.enqueued,
  ]);
  return result.eligible.filter((id) => !accounted.has(id));
}
