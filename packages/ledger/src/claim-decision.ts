import { idempotencyConflict } from './errors';
import type { ClaimRequest, ClaimResult, LedgerRecord } from './ledger';
import { secondsToMs } from './validation';

/**
 * What a claim does to the row, decided once for every store: `insert` a new row, `update` the
 * existing one to `result.record`, or write nothing. Stores run this inside their claim
 * transaction, on the row they read (or locked) there, with the time read once from the clock.
 */
export type ClaimDecision = { write: 'insert' | 'update' | 'none'; result: ClaimResult };

/**
 * The claim rules, in order:
 *
 * 1. No row: insert one, attempt 1.
 * 2. Digest differs from the stored one: IDEMPOTENCY_CONFLICT, whatever the state, the row left
 *    as it is. A changed payload under a settled id is refused too rather than acked as
 *    "delivered": changed money movement is never a retry (Stripe's and the IETF draft's rule).
 * 3. Delivered → 'delivered'; failed → 'failed'. Nothing is written.
 * 4. A live lease (leaseUntil > now) held by another owner → 'busy'. Nothing is written.
 * 5. A live lease held by this owner → 'claimed' again with the same attempt (an idempotent
 *    retry of the same claim); the lease is renewed from now, no attempt is counted.
 * 6. Otherwise the lease is free (released) or lapsed: take it, count an attempt. A lapsed lease
 *    still has its owner (release and settle clear it), so the attempt it covered ended without
 *    recording any outcome: the receiver may or may not have acted, so the row becomes
 *    ambiguous, and stays so.
 */
export function decideClaim(
  current: LedgerRecord | undefined,
  request: ClaimRequest,
  now: number,
): ClaimDecision {
  const leaseUntil = now + secondsToMs(request.leaseSeconds);
  if (current === undefined) {
    const record: LedgerRecord = {
      eventId: request.eventId,
      payloadSha256: request.payloadSha256,
      state: 'processing',
      attempts: 1,
      leaseOwner: request.owner,
      leaseUntil,
      lastOutcome: null,
      ambiguous: false,
      deliveredAt: null,
      retryAt: null,
      createdAt: now,
      updatedAt: now,
    };
    return { write: 'insert', result: { status: 'claimed', attempt: 1, leaseUntil, record } };
  }
  if (current.payloadSha256 !== request.payloadSha256) throw idempotencyConflict(current.eventId);
  if (current.state === 'delivered')
    return { write: 'none', result: { status: 'delivered', record: current } };
  if (current.state === 'failed') return { write: 'none', result: { status: 'failed', record: current } };

  const heldBy = current.leaseOwner;
  const live = heldBy !== null && current.leaseUntil !== null && current.leaseUntil > now;
  if (live && heldBy !== request.owner) {
    return { write: 'none', result: { status: 'busy', leaseUntil: current.leaseUntil!, record: current } };
  }
  if (live) {
    const record: LedgerRecord = { ...current, leaseUntil, updatedAt: now };
    return { write: 'update', result: { status: 'claimed', attempt: current.attempts, leaseUntil, record } };
  }
  const lapsedWithoutOutcome = heldBy !== null;
  const record: LedgerRecord = {
    ...current,
    attempts: current.attempts + 1,
    leaseOwner: request.owner,
    leaseUntil,
    ambiguous: current.ambiguous || lapsedWithoutOutcome,
    retryAt: null,
    updatedAt: now,
  };
  return { write: 'update', result: { status: 'claimed', attempt: record.attempts, leaseUntil, record } };
}
