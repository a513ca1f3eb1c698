import type { SqlValue } from '../record';
import type { SettleKind } from '../settlement';
import type { AttemptInput, AttemptOutcome, AttemptRecord } from './attempt-record';
import { storedSample } from './attempt-redaction';

/** An attempt row as either driver returns it (SQLite: integers and 0/1; PostgreSQL: BIGINT as strings). */
export interface AttemptRow {
  event_id: string;
  attempt: number | string;
  started_at: number | string | bigint;
  duration_ms: number | string | bigint;
  outcome: string;
  status_code: number | string | null;
  error_class: string | null;
  ambiguous: boolean | number;
  response_sample: string | null;
  response_truncated: boolean | number;
  destination_id: string | null;
}

/** Every column, in table order. */
export const ATTEMPT_COLUMNS = [
  'event_id',
  'attempt',
  'started_at',
  'duration_ms',
  'outcome',
  'status_code',
  'error_class',
  'ambiguous',
  'response_sample',
  'response_truncated',
  'destination_id',
] as const satisfies readonly (keyof AttemptRow)[];

/** The columns the settle supplies; event_id and attempt come from the settled row. */
export const ATTEMPT_INPUT_COLUMNS = ATTEMPT_COLUMNS.filter(
  (column) => column !== 'event_id' && column !== 'attempt',
);

export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retry', 'failed'];

const OUTCOME_OF: Readonly<Record<SettleKind, AttemptOutcome>> = {
  complete: 'delivered',
  release: 'retry',
  fail: 'failed',
};

/** The values a settle of `kind` writes for its (checked) attempt; `ambiguous` is the settle's. */
export function attemptParams(
  kind: SettleKind,
  attempt: AttemptInput,
  ambiguous: boolean,
): Record<(typeof ATTEMPT_INPUT_COLUMNS)[number], SqlValue> {
  const sample = storedSample(attempt.responseSample);
  return {
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    outcome: OUTCOME_OF[kind],
    status_code: attempt.statusCode ?? null,
    error_class: attempt.errorClass ?? null,
    ambiguous,
    response_sample: sample?.body ?? null,
    response_truncated: sample?.truncated ?? false,
    destination_id: attempt.destinationId ?? null,
  };
}

export function attemptFromRow(row: AttemptRow): AttemptRecord {
  if (!ATTEMPT_OUTCOMES.includes(row.outcome as AttemptOutcome)) {
    throw new Error(
      `attempt ${row.attempt} of ${JSON.stringify(row.event_id)} has an unknown outcome ${JSON.stringify(row.outcome)}`,
    );
  }
  return {
    eventId: row.event_id,
    attempt: Number(row.attempt),
    startedAt: Number(row.started_at),
    durationMs: Number(row.duration_ms),
    outcome: row.outcome as AttemptOutcome,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    errorClass: row.error_class,
    ambiguous: row.ambiguous === true || row.ambiguous === 1,
    responseSample:
      row.response_sample === null
        ? null
        : {
            body: row.response_sample,
            truncated: row.response_truncated === true || row.response_truncated === 1,
          },
    destinationId: row.destination_id,
  };
}
