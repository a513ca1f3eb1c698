import type { LedgerRecord } from '@queueport/ledger';

export type EventVerdict = 'delivered-once' | 'recovered' | 'lost' | 'duplicated';

export interface EventHistory {
  eventId: string;
  /** Business effects the receiver recorded for this event. */
  effects: number;
  /** Crashes injected while handling this event. */
  crashes: number;
  record: LedgerRecord | undefined;
}

/**
 * Jepsen-style classification of each event from what was observed, not from what the worker
 * claims: the receiver's effects and the ledger's final row.
 */
export function classify(history: EventHistory): EventVerdict {
  if (history.effects === 0 || history.record?.state !== 'delivered') return 'lost';
  if (history.effects > 1) return 'duplicated';
  return history.crashes > 0 ? 'recovered' : 'delivered-once';
}

export function tally(verdicts: readonly EventVerdict[]): Record<EventVerdict, number> {
  const counts: Record<EventVerdict, number> = { 'delivered-once': 0, recovered: 0, lost: 0, duplicated: 0 };
  for (const verdict of verdicts) counts[verdict]++;
  return counts;
}
