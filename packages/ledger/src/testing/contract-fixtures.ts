import { payloadDigest, QueueError } from '@queueport/core';
import type { ClaimRequest } from '../ledger';

/** The payload every contract claim carries, unless a case is about a different one. */
export const DIGEST = payloadDigest({ amount: 4200, currency: 'EUR' });
export const OTHER_DIGEST = payloadDigest({ amount: 9900, currency: 'EUR' });
export const LEASE_S = 30;
export const LEASE_MS = LEASE_S * 1000;

export function claimOf(eventId: string, owner: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { eventId, payloadSha256: DIGEST, owner, leaseSeconds: LEASE_S, ...extra };
}

/** The QueueError `promise` rejects with; anything else it rejects with, or resolving, fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<QueueError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof QueueError) return error;
    throw error;
  }
  throw new Error('expected a QueueError, but it resolved');
}
