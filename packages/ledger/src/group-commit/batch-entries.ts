import { isQueueError, QueueError } from '@queueport/core';
import { invalidArgument } from '../errors';
import { type BatchOutcome, type ClaimRequest, MAX_BATCH_ENTRIES, type SettleEntry } from '../ledger';
import type { SettleKind } from '../settlement';
import { checkClaim, checkSettle } from '../validation';

const SETTLE_KINDS: readonly SettleKind[] = ['complete', 'fail', 'release'];

/** The batch itself: an array of 0 to MAX_BATCH_ENTRIES entries. What is wrong with one entry is that entry's outcome. */
export function checkBatch(
  entries: unknown,
  what: 'claimMany' | 'settleMany',
): asserts entries is readonly unknown[] {
  if (!Array.isArray(entries))
    throw invalidArgument(`${what} takes an array of requests`, { field: 'requests' });
  if (entries.length > MAX_BATCH_ENTRIES) {
    throw invalidArgument(`${what} takes at most ${MAX_BATCH_ENTRIES} entries`, { field: 'requests' });
  }
}

/** Each entry's input problem, as the single call would have thrown it; `undefined` for a good entry. */
export function claimProblem(request: ClaimRequest): QueueError | undefined {
  return problemOf(() => checkClaim(request));
}

export function settleProblem(entry: SettleEntry): QueueError | undefined {
  return problemOf(() => {
    if (entry === null || typeof entry !== 'object' || !SETTLE_KINDS.includes(entry.kind)) {
      throw invalidArgument('a settle entry needs kind "complete", "fail" or "release"', { field: 'kind' });
    }
    checkSettle(entry);
  });
}

/** For entries the single call checked before it queued them: checking twice would only cost time. */
export const alreadyChecked = (): undefined => undefined;

function problemOf(check: () => void): QueueError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return asQueueError(error);
  }
}

export function asQueueError(error: unknown): QueueError {
  return isQueueError(error)
    ? error
    : new QueueError('INTERNAL', 'ledger: unexpected failure', { cause: error });
}

export const failed = <T>(error: QueueError): BatchOutcome<T> => ({ ok: false, error });
export const succeeded = <T>(value: T): BatchOutcome<T> => ({ ok: true, value });
