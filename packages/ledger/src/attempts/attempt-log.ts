import type { AttemptRecord } from './attempt-record';

export interface ListAttemptsRequest {
  eventId: string;
  /** Attempts per page, 1 to MAX_SCAN_LIMIT. */
  limit: number;
  /** The first claim number to list (default 1): the last one of the previous page plus one. */
  fromAttempt?: number;
}

/**
 * The attempt log beside a ledger: every attempt a settle recorded (`SettleRequest.attempt`).
 * Kept apart from `Ledger` so that a `Ledger` written before it still is one; both stores here
 * are both (`hasAttemptLog` tells).
 */
export interface AttemptLog {
  /** One event's attempts by claim number, ascending, a page at a time. */
  listAttempts(request: ListAttemptsRequest): Promise<AttemptRecord[]>;
  /**
   * Deletes attempts that started more than `olderThanSeconds` ago, whatever their event's state,
   * in short batches; returns how many. `prune` of terminal rows deletes their attempts as well.
   */
  pruneAttempts(request: { olderThanSeconds: number }): Promise<number>;
}

/** Whether a ledger also keeps the attempt log (a wrapper or another store may not). */
export function hasAttemptLog<T extends object>(ledger: T): ledger is T & AttemptLog {
  const candidate = ledger as Partial<AttemptLog>;
  return typeof candidate.listAttempts === 'function' && typeof candidate.pruneAttempts === 'function';
}
