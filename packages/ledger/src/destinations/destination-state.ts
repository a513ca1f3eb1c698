import type { AttemptInput } from '../attempts/attempt-record';
import type { Ledger, LedgerRecord, LedgerState } from '../ledger';

/**
 * Destinations switched off, and the events parked while they are, kept in the ledger's own
 * database: a CLI in another process disables or enables a destination, and every worker on
 * the ledger sees it. Parking is part of the event's history, so it shares the ledger's
 * transactions: an event is parked and its claim given back in one commit, never one without
 * the other.
 */

/** A destination's durable state, with the count of events parked for it. */
export interface DestinationState {
  destinationId: string;
  disabled: boolean;
  /** Why it was last disabled (kept after it is enabled again, as history); never a URL or secret. */
  reason: string | null;
  /** Epoch ms of the last disable. */
  disabledAt: number | null;
  /** Epoch ms of the last enable. */
  enabledAt: number | null;
  updatedAt: number;
  /** Events parked for it now. Non-zero while enabled: a resume did not finish (run it again). */
  parked: number;
}

/** What a disable or enable did: `changed` is false when the destination already was so. */
export interface DestinationChange {
  changed: boolean;
  /** Absent only for an enable of a destination the store has never seen. */
  state: DestinationState | undefined;
}

export interface DisableRequest {
  destinationId: string;
  /** Short and for people ("http 410", "5 consecutive failures"); cut as an outcome is. */
  reason: string;
}

export interface ParkRequest {
  eventId: string;
  /** The claim's owner: parking gives its lease back, as a settle does. */
  owner: string;
  destinationId: string;
  /**
   * The envelope body as the queue delivered it, republished as it is when the destination is
   * resumed. At most `MAX_PARKED_BODY_BYTES` (UTF-8).
   */
  body: string;
  /**
   * The claim's attempt reached the receiver (the send whose failure disabled the destination):
   * it stays counted, and `outcome` is recorded before the parking note. Otherwise the claim is
   * un-counted: parking is no attempt, and the event keeps its whole retry budget.
   */
  attemptMade?: boolean;
  /** The attempt's own outcome, with `attemptMade`. */
  outcome?: string;
  /** As a settle's: the attempt may have reached the receiver without a usable answer. */
  ambiguous?: boolean;
  /**
   * The attempt, for the attempt log, as a settle's `attempt` is: written in the park's own
   * transaction, under the claim's number, and not at all when the park is refused. Only with
   * `attemptMade`: a park that un-counts the claim made no attempt to record. Its outcome in the
   * log is `retry`, since a parked event is sent again once its destination is resumed.
   */
  attempt?: AttemptInput;
}

export type ParkResult =
  /** Parked, and the claim given back (the ledger row as it now is). Ack the message. */
  | { status: 'parked'; record: LedgerRecord }
  /**
   * The destination is not disabled (any more): nothing was written, the lease is still the
   * caller's. Send the event.
   */
  | { status: 'enabled' };

/** Where a page of parked events ended: the next page starts after it, in due order. */
export interface ParkedCursor {
  dueAt: number;
  eventId: string;
}

export interface ParkedEvent {
  eventId: string;
  destinationId: string;
  /** When the event first came due (its ledger row's creation): resumes go in this order. */
  dueAt: number;
  /** When it was (last) parked; a queue's dedupe window counts from before this. */
  parkedAt: number;
  /** Parks of this event so far; `unpark` removes the row only if no park came since it was listed. */
  parkCount: number;
  body: string;
  /** The state of the event's ledger row; null when the row is gone. */
  ledgerState: LedgerState | null;
}

export interface ListParkedRequest {
  destinationId: string;
  /** 1 to MAX_SCAN_LIMIT. */
  limit: number;
  after?: ParkedCursor;
}

export interface ListDestinationsRequest {
  /** 1 to MAX_SCAN_LIMIT; default 100. */
  limit?: number;
  /** Resume after this destination id. */
  after?: string;
}

export interface DestinationStateStore {
  get(destinationId: string): Promise<DestinationState | undefined>;
  /** Every destination the store has seen, by id. */
  list(request?: ListDestinationsRequest): Promise<DestinationState[]>;
  /** The ids disabled now: what a worker's cache reads, one short query. */
  disabledIds(): Promise<string[]>;
  /** Idempotent: disabling a disabled destination changes nothing (its first reason stays). */
  disable(request: DisableRequest): Promise<DestinationChange>;
  /**
   * Idempotent. Enabling alone does not bring the parked events back: resume them
   * (`resumeDestination` in @queueport/webhook), which enables first.
   */
  enable(destinationId: string): Promise<DestinationChange>;
  /**
   * One transaction: while the destination is disabled, gives the claim's lease back (the
   * attempt un-counted unless `attemptMade`), records "parked: destination <id> disabled",
   * keeps the body, and adds `attempt` to the attempt log. Parking an event that is parked
   * already keeps its place in the due order. Throws LEASE_LOST when `owner` no longer holds
   * the lease, and then writes nothing.
   */
  park(request: ParkRequest): Promise<ParkResult>;
  /** The parked events of one destination in due order (due time, then event id), a page at a time. */
  listParked(request: ListParkedRequest): Promise<ParkedEvent[]>;
  /**
   * Removes parked rows after their events were republished (or found settled). An entry whose
   * event was parked again since it was listed (`parkCount` moved on) is left. Returns how many went.
   */
  unpark(entries: readonly Pick<ParkedEvent, 'eventId' | 'parkCount'>[]): Promise<number>;
}

/** A ledger that keeps destination state: the SQLite and PostgreSQL stores do. */
export interface LedgerWithDestinations extends Ledger {
  readonly destinations: DestinationStateStore;
}

/** The ledger's destination state store, where it has one (a ledger of your own may not). */
export function destinationStoreOf(ledger: Ledger): DestinationStateStore | undefined {
  const store = (ledger as Partial<LedgerWithDestinations>).destinations;
  return store && typeof store === 'object' && typeof store.park === 'function' ? store : undefined;
}

/**
 * The longest parked body. An inline envelope is at most the queue's 256 KiB body limit; a
 * payload the queue had offloaded to its payload store is delivered (and so parked) inline, and
 * is offloaded again when it is republished, so the bound leaves room for such payloads.
 */
export const MAX_PARKED_BODY_BYTES = 32 * 1024 * 1024;

/** The longest destination id (the webhook package's rule). */
export const MAX_DESTINATION_ID_CHARS = 256;
