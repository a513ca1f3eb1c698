import type { LedgerState, ReleaseRequest, SettleRequest } from './ledger';
import type { SqlValue } from './record';
import { outcomeOf } from './validation';

export type SettleKind = 'complete' | 'fail' | 'release';

/**
 * The settle rule, written once for every store: complete / fail / release succeed only while the
 * row is processing and `owner` still holds its lease. A lapsed lease nobody re-took still counts
 * (an SQS receipt stays valid until the message is received again); a re-take, a settle or a
 * release clears or replaces the owner, after which the old owner gets LEASE_LOST.
 *
 * It is a guard on one conditional UPDATE, so settling is a single statement in both dialects:
 * no row updated means the lease is lost.
 */
export const SETTLE_GUARD_SQL = "state = 'processing' AND lease_owner = :owner";

const TARGET_STATE: Readonly<Record<SettleKind, LedgerState>> = {
  complete: 'delivered',
  fail: 'failed',
  release: 'processing',
};

/**
 * The columns a settle writes. Every settle clears the lease and records the outcome;
 * complete stamps deliveredAt; release keeps the row processing and records when it may be
 * tried again.
 */
export function settlementParams(
  kind: SettleKind,
  request: SettleRequest | ReleaseRequest,
  now: number,
): Record<string, SqlValue> {
  return {
    event_id: request.eventId,
    owner: request.owner,
    state: TARGET_STATE[kind],
    last_outcome: outcomeOf(request.outcome),
    delivered_at: kind === 'complete' ? now : null,
    retry_at: kind === 'release' ? ((request as ReleaseRequest).retryAt ?? null) : null,
    updated_at: now,
    ambiguous: request.ambiguous === true,
  };
}
