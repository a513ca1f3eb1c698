import type { Ledger, LedgerRecord } from '@queueport/ledger';

export interface ReconciliationReport {
  /** Events with no terminal state, untouched for longer than the bound: stuck or forgotten. */
  stale: LedgerRecord[];
  /**
   * Events where an attempt may have reached the receiver without a usable answer: its worker
   * died before recording an outcome, or its request left and timed out or lost its connection.
   * They stay listed after a later attempt succeeds, since a receiver that ignores
   * Idempotency-Key may have acted on them twice. A person (or the receiver's own records) must
   * settle these.
   */
  ambiguous: LedgerRecord[];
}

export interface ReconciliationOptions {
  olderThanSeconds: number;
  /** Page size of each ledger scan. */
  pageSize?: number;
  /** Stop after this many rows of each kind, so a huge backlog cannot exhaust memory. */
  maxRows?: number;
}

/** Reads the ledger page by page; never holds a transaction across pages. */
export async function buildReconciliationReport(
  ledger: Ledger,
  options: ReconciliationOptions,
): Promise<ReconciliationReport> {
  const pageSize = options.pageSize ?? 500;
  const maxRows = options.maxRows ?? 10_000;
  const stale = await collect(maxRows, (after) =>
    ledger.scanPending({
      olderThanSeconds: options.olderThanSeconds,
      limit: pageSize,
      ...(after ? { after } : {}),
    }),
  );
  const ambiguous = await collect(maxRows, (after) =>
    ledger.scanAmbiguous({ limit: pageSize, ...(after ? { after } : {}) }),
  );
  return { stale, ambiguous };
}

async function collect(
  maxRows: number,
  page: (after: string | undefined) => Promise<LedgerRecord[]>,
): Promise<LedgerRecord[]> {
  const rows: LedgerRecord[] = [];
  let after: string | undefined;
  while (rows.length < maxRows) {
    const batch = await page(after);
    if (batch.length === 0) break;
    rows.push(...batch.slice(0, maxRows - rows.length));
    after = batch[batch.length - 1]!.eventId;
  }
  return rows;
}
