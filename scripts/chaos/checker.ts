/**
 * The chaos campaign's judge: from what the producer published, what the receiver recorded,
 * what the ledger holds and what the dead-letter queue and reconciliation flagged, it classifies
 * every event and counts what must never happen. Pure: records in, verdict out, so planted
 * faults can be proven to be caught without a campaign.
 */

/** One distinct event the producer published, `publishes` times (a duplicate publish is deliberate). */
export interface PublishedEvent {
  eventId: string;
  publishes: number;
}

/** One request the receiver answered, as it recorded it durably before answering. */
export interface ReceivedRequest {
  eventId: string;
  /** The request's idempotency key: the idempotent path applies one effect per key. */
  idempotencyKey: string;
  /** What the receiver answered; a 2xx is an effect on the non-idempotent path. */
  status: number;
}

export interface LedgerEntry {
  eventId: string;
  state: 'processing' | 'delivered' | 'failed';
  ambiguous: boolean;
}

export interface DeadLetter {
  eventId: string;
  reason: string;
}

export interface ChaosRecords {
  published: readonly PublishedEvent[];
  requests: readonly ReceivedRequest[];
  ledger: readonly LedgerEntry[];
  deadLetters: readonly DeadLetter[];
  /** Event ids a reconciliation run listed for a person to look at. */
  reconciled: readonly string[];
}

export type EventClass = 'delivered-once' | 'delivered-after-retries' | 'dead-lettered' | 'lost';

/** What must be zero for a run to hold. */
export interface Violations {
  /** Neither delivered nor dead-lettered with a reason. */
  lost: number;
  /** More than one effect on the idempotent path: retries that did not carry the same key. */
  duplicated: number;
  /** More than one effect on the non-idempotent path with neither an ambiguous row nor a reconciliation entry. */
  unflagged: number;
  /** The ledger and the receiver disagree: delivered without an effect, or an effect with no delivered or ambiguous row. */
  disagreements: number;
  /** Requests for an event the producer never published. */
  unknown: number;
}

export interface Verdict extends Violations {
  events: number;
  classes: Record<EventClass, number>;
  /** Ledger rows flagged ambiguous (allowed: each is a reconciliation case, not a failure). */
  ambiguous: number;
  /** True when every violation count is zero. */
  held: boolean;
  /** Up to a few event ids per violation, for the person reading the report. */
  examples: Partial<Record<keyof Violations, string[]>>;
}

const EXAMPLES_PER_KIND = 5;

const isEffect = (status: number) => status >= 200 && status < 300;

export function checkRecords(records: ChaosRecords): Verdict {
  const published = new Set(records.published.map((event) => event.eventId));
  const requestsOf = new Map<string, ReceivedRequest[]>();
  const violations: Violations = { lost: 0, duplicated: 0, unflagged: 0, disagreements: 0, unknown: 0 };
  const examples: Verdict['examples'] = {};
  const flag = (kind: keyof Violations, eventId: string) => {
    violations[kind]++;
    const list = examples[kind] ?? [];
    examples[kind] = list;
    if (list.length < EXAMPLES_PER_KIND && !list.includes(eventId)) list.push(eventId);
  };
  for (const request of records.requests) {
    if (!published.has(request.eventId)) {
      flag('unknown', request.eventId);
      continue;
    }
    const list = requestsOf.get(request.eventId);
    if (list) list.push(request);
    else requestsOf.set(request.eventId, [request]);
  }
  const ledger = new Map(records.ledger.map((entry) => [entry.eventId, entry]));
  const deadLettered = new Set(
    records.deadLetters.filter((letter) => letter.reason.trim() !== '').map((letter) => letter.eventId),
  );
  const reconciled = new Set(records.reconciled);
  const classes: Record<EventClass, number> = {
    'delivered-once': 0,
    'delivered-after-retries': 0,
    'dead-lettered': 0,
    lost: 0,
  };
  let ambiguous = 0;
  for (const eventId of published) {
    const requests = requestsOf.get(eventId) ?? [];
    const effects = requests.filter((request) => isEffect(request.status));
    const keys = new Set(effects.map((request) => request.idempotencyKey));
    const row = ledger.get(eventId);
    if (row?.ambiguous) ambiguous++;
    if (effects.length === 0) {
      if (deadLettered.has(eventId)) classes['dead-lettered']++;
      else {
        classes.lost++;
        flag('lost', eventId);
      }
    } else if (requests.length === 1) classes['delivered-once']++;
    else classes['delivered-after-retries']++;
    if (keys.size > 1) flag('duplicated', eventId);
    if (effects.length > 1 && !row?.ambiguous && !reconciled.has(eventId)) flag('unflagged', eventId);
    const ledgerDelivered = row?.state === 'delivered';
    if (ledgerDelivered && effects.length === 0) flag('disagreements', eventId);
    if (effects.length > 0 && !ledgerDelivered && !row?.ambiguous) flag('disagreements', eventId);
  }
  const held = Object.values(violations).every((count) => count === 0);
  return { events: published.size, classes, ambiguous, ...violations, held, examples };
}
