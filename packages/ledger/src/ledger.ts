import type { QueueError } from '@queueport/core';
import type { AttemptInput } from './attempts/attempt-record';

/**
 * The idempotency ledger: one row per logical event, owned by the application. The queue's own
 * dedupe absorbs quick echoes; the ledger owns history. Every method is one short transaction,
 * and none is ever held open across a network call.
 */

export type LedgerState = 'processing' | 'delivered' | 'failed';

export interface LedgerRecord {
  eventId: string;
  /** SHA-256 of the canonical payload, as carried by the envelope. */
  payloadSha256: string;
  state: LedgerState;
  /** Claims taken so far (each is one attempt at the side effect). */
  attempts: number;
  /** Who holds the lease, while one is held. */
  leaseOwner: string | null;
  /** Epoch ms; the lease is live while this is in the future. */
  leaseUntil: number | null;
  /** The last recorded outcome (e.g. "http 200", "http 503", "timeout"); never a secret. */
  lastOutcome: string | null;
  /**
   * True once an attempt is known to have ended without a usable outcome: its lease was re-taken
   * after it lapsed, or it was settled with `ambiguous: true` (its request left and no answer
   * came back). The receiver may or may not have acted on it. Never cleared; reconciliation
   * reports these as ambiguous.
   */
  ambiguous: boolean;
  deliveredAt: number | null;
  /** Epoch ms; when a released event may be tried again (informational for reconciliation). */
  retryAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type ClaimResult =
  /** The caller holds the lease: do the side effect, then complete / fail / release. */
  | { status: 'claimed'; attempt: number; leaseUntil: number; record: LedgerRecord }
  /** Already delivered: ack the message without sending again. */
  | { status: 'delivered'; record: LedgerRecord }
  /** Terminally failed earlier: ack (or dead-letter) without sending again. */
  | { status: 'failed'; record: LedgerRecord }
  /** Another worker holds a live lease: leave the message for redelivery. */
  | { status: 'busy'; leaseUntil: number; record: LedgerRecord };

export interface ClaimRequest {
  eventId: string;
  payloadSha256: string;
  /** Identifies this worker's attempt; only the owner can settle the lease. */
  owner: string;
  leaseSeconds: number;
}

export interface SettleRequest {
  eventId: string;
  owner: string;
  /** Short, human-readable; stored as last_outcome. */
  outcome: string;
  /**
   * The attempt being settled may have reached the receiver without a usable answer (a timeout
   * or a broken connection after the request left): the receiver may or may not have acted.
   * Marks the row ambiguous, and it stays so whatever happens next (a later success included).
   */
  ambiguous?: boolean;
  /**
   * The attempt this settle ends, for the attempt log (stores that keep one: `hasAttemptLog`).
   * Written in the settle's own transaction under the row's claim number, and only if the settle
   * succeeds: a settle that lost its lease records no attempt.
   */
  attempt?: AttemptInput;
}

export interface ReleaseRequest extends SettleRequest {
  /** When it may be tried again, epoch ms. */
  retryAt?: number;
}

export interface ScanRequest {
  /** Only events whose last update is older than this many seconds. */
  olderThanSeconds: number;
  limit: number;
  /** Resume after this event id (keyset pagination). */
  after?: string;
}

export interface ListRequest {
  /** Rows per page, 1 to MAX_SCAN_LIMIT. */
  limit: number;
  /** Resume after this event id: the last id of the previous page. */
  after?: string;
  /** Only rows in this state. */
  state?: LedgerState;
}

/** One entry of `settleMany`: which settle, and its request. */
export type SettleEntry =
  | ({ kind: 'complete' } & SettleRequest)
  | ({ kind: 'fail' } & SettleRequest)
  | ({ kind: 'release' } & ReleaseRequest);

/**
 * One entry's outcome in a batch, in the order of the requests. `error` is what the single call
 * would have thrown for that entry (INVALID_ARGUMENT, IDEMPOTENCY_CONFLICT, LEASE_LOST,
 * UNAVAILABLE…): one entry's failure never fails the others.
 */
export type BatchOutcome<T> = { ok: true; value: T } | { ok: false; error: QueueError };

/** The most entries one `claimMany` / `settleMany` takes. */
export const MAX_BATCH_ENTRIES = 1000;

export interface Ledger {
  /**
   * One transaction. Delivered → 'delivered'. Failed → 'failed'. Digest differs from the stored
   * one → throws QueueError IDEMPOTENCY_CONFLICT (changed money movement is never a retry).
   * Live lease held by another owner → 'busy'. Otherwise takes (or re-takes) the lease and
   * counts the attempt; re-taking a lapsed lease whose attempt recorded no outcome marks the
   * row ambiguous. Concurrent claims of one id: exactly one wins.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** processing → delivered. Throws LEASE_LOST if `owner` no longer holds the lease. */
  complete(request: SettleRequest): Promise<LedgerRecord>;
  /** processing → failed (terminal). Throws LEASE_LOST if `owner` no longer holds the lease. */
  fail(request: SettleRequest): Promise<LedgerRecord>;
  /** Gives the lease back (retry later), recording the outcome. Throws LEASE_LOST likewise. */
  release(request: ReleaseRequest): Promise<LedgerRecord>;
  /**
   * Many claims, each decided exactly as `claim` decides it, written in one commit (SQLite: one
   * transaction; PostgreSQL: one multi-row statement for the ids never seen). Resolves once the
   * commit holding every written row is durable; one outcome per request, in order. Throws only
   * for what is wrong with the batch itself (not an array, more than MAX_BATCH_ENTRIES) or when
   * the ledger is closed. The same id twice in one batch is decided in order, as two calls would be.
   */
  claimMany(requests: readonly ClaimRequest[]): Promise<BatchOutcome<ClaimResult>[]>;
  /** Many settles, each as complete / fail / release would do it, in one commit; one outcome each, in order. */
  settleMany(entries: readonly SettleEntry[]): Promise<BatchOutcome<LedgerRecord>[]>;
  get(eventId: string): Promise<LedgerRecord | undefined>;
  /** Events with no terminal state whose last update is older than the bound, oldest first. */
  scanPending(request: ScanRequest): Promise<LedgerRecord[]>;
  /** Events flagged ambiguous (any state), for the reconciliation report. */
  scanAmbiguous(request: { limit: number; after?: string }): Promise<LedgerRecord[]>;
  /**
   * Every row (or every row in `state`), by event id in code-point order, one page at a time:
   * pass the last id of a page as `after` to read the next; an empty page is the end. Each page
   * is its own read, so rows written between pages may or may not be seen, but none before the
   * cursor is listed twice.
   */
  list(request: ListRequest): Promise<LedgerRecord[]>;
  /** Deletes terminal rows last updated more than `olderThanSeconds` ago; returns how many. */
  prune(request: { olderThanSeconds: number }): Promise<number>;
  close(): Promise<void>;
}
