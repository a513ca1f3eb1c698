import { type Ledger, type LedgerRecord, MAX_SCAN_LIMIT } from '@queueport/ledger';
import type { Budget } from './budget';

/** The scan may use this share of the budget; the rest is for republishing. */
const SURVEY_SHARE = 0.3;
/** Handing the scan to workers costs one publish per unit: the scan may take most of the budget. */
const ENQUEUE_SURVEY_SHARE = 0.8;
/** Listing ambiguous rows may run until this share of the budget. */
const AMBIGUOUS_SHARE = 0.1;
const AMBIGUOUS_PAGE = 500;

type Verdict = 'eligible' | 'leased' | 'scheduled';

/** Whether a stale row is stuck, or is only waiting (on a live lease, or on a retry still due). */
export function classify(record: LedgerRecord, wallNow: number): Verdict {
  if (record.leaseOwner !== null && record.leaseUntil !== null && record.leaseUntil > wallNow)
    return 'leased';
  // Released with a retry still to come: the queue holds the message, delayed until then.
  if (record.retryAt !== null && record.retryAt > wallNow) return 'scheduled';
  return 'eligible';
}

export interface Survey {
  eligible: LedgerRecord[];
  leased: number;
  scheduled: number;
  complete: boolean;
  /** The last row the scan read: where a continuation carries on. */
  cursor: string | undefined;
}

export interface SurveyRequest {
  ledger: Ledger;
  olderThanSeconds: number;
  batch: number;
  after: string | undefined;
  maxRows: number;
  /** Handing the scan to workers: the scan may take a larger share of the budget. */
  forWorkers: boolean;
}

/** The stale rows, page by page (no transaction across pages), within its share of the budget. */
export async function surveyPending(
  request: SurveyRequest,
  budget: Budget,
  wallClock: () => number,
): Promise<Survey> {
  const survey: Survey = { eligible: [], leased: 0, scheduled: 0, complete: false, cursor: request.after };
  const page = Math.min(MAX_SCAN_LIMIT, request.maxRows, Math.max(request.batch, 1_000));
  const share = request.forWorkers ? ENQUEUE_SURVEY_SHARE : SURVEY_SHARE;
  const until = Math.min(budget.at(share), budget.stopAt);
  while (survey.eligible.length < request.maxRows && budget.now() < until) {
    const rows = await request.ledger.scanPending({
      olderThanSeconds: request.olderThanSeconds,
      limit: page,
      ...(survey.cursor !== undefined ? { after: survey.cursor } : {}),
    });
    const wallNow = wallClock();
    for (const record of rows) {
      const verdict = classify(record, wallNow);
      if (verdict === 'leased') survey.leased++;
      else if (verdict === 'scheduled') survey.scheduled++;
      else survey.eligible.push(record);
    }
    if (rows.length > 0) survey.cursor = rows[rows.length - 1]!.eventId;
    if (rows.length < page) {
      survey.complete = true;
      break;
    }
  }
  return survey;
}

/** The ambiguous rows, first and in a small share of the budget: a person needs them whatever else happens. */
export async function listAmbiguous(
  ledger: Ledger,
  max: number,
  budget: Budget,
): Promise<{ records: LedgerRecord[]; complete: boolean }> {
  const records: LedgerRecord[] = [];
  if (max <= 0) return { records, complete: true };
  let after: string | undefined;
  const until = Math.min(budget.at(AMBIGUOUS_SHARE), budget.stopAt);
  while (records.length < max && budget.now() < until) {
    const limit = Math.min(AMBIGUOUS_PAGE, max - records.length);
    const rows = await ledger.scanAmbiguous({ limit, ...(after !== undefined ? { after } : {}) });
    records.push(...rows);
    if (rows.length < limit) return { records, complete: true };
    after = rows[rows.length - 1]!.eventId;
  }
  return { records, complete: false };
}
