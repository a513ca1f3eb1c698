import type { LedgerRecord } from '@queueport/ledger';

export type EventVerdict =
  | 'delivered-once'
  | 'recovered'
  /** The id was reused with a different payload: the ledger refused it and only the first took effect. */
  | 'conflict-refused'
  | 'lost'
  | 'duplicated'
  /** A payload other than the ledger row's took effect, or the ledger answered a changed digest. */
  | 'conflict-accepted'
  /** A changed payload was enqueued under the id but never refused, or was still queued at the end. */
  | 'conflict-unsettled'
  /** The ledger granted the event's lease while another worker still held it. */
  | 'double-claimed';

/** The verdicts no correct worker, ledger and idempotent receiver ever produce. */
export const FAILING_VERDICTS = [
  'lost',
  'duplicated',
  'conflict-accepted',
  'conflict-unsettled',
  'double-claimed',
] as const satisfies readonly EventVerdict[];

export interface EventHistory {
  eventId: string;
  /**
   * Business effects the receiver recorded for this event id, counted by the identity in the
   * posted body (the envelope's event_id), not by the key the receiver deduplicated on.
   */
  effects: number;
  /** The payload digest each of those effects carried. */
  effectDigests: string[];
  /** The distinct keys the receiver deduplicated those effects on (more than one: the key changed). */
  dedupeKeys: string[];
  /** Crashes injected while handling this event. */
  crashes: number;
  record: LedgerRecord | undefined;
  /** The distinct payload digests enqueued under this id (publishes the queue did not absorb). */
  enqueuedDigests: string[];
  /** The digest of every claim the ledger refused with IDEMPOTENCY_CONFLICT. */
  refusedDigests: string[];
  /** Claims the ledger answered although their digest differed from the row's. */
  acceptedConflicts: number;
  /** Claims granted while another owner's lease was live. */
  overlappingClaims: number;
  /** Digests of this event's messages still in the queue after the run. */
  leftoverDigests: string[];
}

/**
 * Jepsen-style classification of each event from what was observed, not from what the worker
 * claims: the receiver's business effects, the ledger's answers and final row, and what the
 * queue still held. The first rule that applies wins.
 */
export function classify(history: EventHistory): EventVerdict {
  const { record } = history;
  if (history.effects === 0 || record?.state !== 'delivered') return 'lost';
  const foreign = (digest: string) => digest !== record.payloadSha256;
  if (history.acceptedConflicts > 0 || history.effectDigests.some(foreign)) return 'conflict-accepted';
  if (history.overlappingClaims > 0) return 'double-claimed';
  const changed = history.enqueuedDigests.filter(foreign);
  if (changed.some((d) => !history.refusedDigests.includes(d)) || history.leftoverDigests.some(foreign)) {
    return 'conflict-unsettled';
  }
  if (history.effects > 1) return 'duplicated';
  if (changed.length > 0) return 'conflict-refused';
  return history.crashes > 0 ? 'recovered' : 'delivered-once';
}

export function tally(verdicts: readonly EventVerdict[]): Record<EventVerdict, number> {
  const counts: Record<EventVerdict, number> = {
    'delivered-once': 0,
    recovered: 0,
    'conflict-refused': 0,
    lost: 0,
    duplicated: 0,
    'conflict-accepted': 0,
    'conflict-unsettled': 0,
    'double-claimed': 0,
  };
  for (const verdict of verdicts) counts[verdict]++;
  return counts;
}
