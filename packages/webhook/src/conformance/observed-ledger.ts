import { type Clock, isQueueError } from '@queueport/core';
import type { ClaimRequest, ClaimResult, Ledger } from '@queueport/ledger';

/** What the ledger answered about one event over a run, as the workers saw it. */
export interface ClaimObservations {
  /** The payload digest of every claim the ledger refused with IDEMPOTENCY_CONFLICT. */
  refusedDigests: string[];
  /** Claims answered (claimed, busy, delivered, failed) although their digest differed from the row's. */
  acceptedConflicts: number;
  /**
   * Claims granted while another owner still held a live lease on the event, one it had not
   * begun to settle: two workers sending at once, which the lease exists to prevent.
   */
  overlappingClaims: number;
  /** The payload digest of every claim made, refused or answered: what reached a worker. */
  claimedDigests: string[];
}

interface EventLog extends ClaimObservations {
  /** Owners granted a lease and not yet settling, with their lease ends. */
  holds: Map<string, number>;
}

/**
 * Passes every call through to `inner` and writes down what it answered: refusals, answers that
 * ignored a changed digest, and leases granted on top of a live one. A hold ends when its owner
 * calls complete, fail or release (before the answer: that call may be the last word), so a
 * settle racing a claim is never mistaken for an overlap.
 */
export function observeLedger(
  inner: Ledger,
  clock: Clock,
): { ledger: Ledger; observations(eventId: string): ClaimObservations } {
  const logs = new Map<string, EventLog>();
  const log = (eventId: string): EventLog => {
    let entry = logs.get(eventId);
    if (!entry) {
      entry = {
        refusedDigests: [],
        acceptedConflicts: 0,
        overlappingClaims: 0,
        claimedDigests: [],
        holds: new Map(),
      };
      logs.set(eventId, entry);
    }
    return entry;
  };
  const settling = (request: { eventId: string; owner: string }): void => {
    log(request.eventId).holds.delete(request.owner);
  };

  const asking = (request: ClaimRequest): EventLog => {
    const entry = log(request.eventId);
    if (!entry.claimedDigests.includes(request.payloadSha256))
      entry.claimedDigests.push(request.payloadSha256);
    return entry;
  };
  const refused = (entry: EventLog, request: ClaimRequest, error: unknown): void => {
    if (isQueueError(error, 'IDEMPOTENCY_CONFLICT')) entry.refusedDigests.push(request.payloadSha256);
  };
  const answered = (entry: EventLog, request: ClaimRequest, result: ClaimResult): void => {
    if (result.record.payloadSha256 !== request.payloadSha256) entry.acceptedConflicts++;
    if (result.status === 'claimed') {
      const now = clock.now();
      const live = [...entry.holds].some(([owner, until]) => owner !== request.owner && until > now);
      if (live) entry.overlappingClaims++;
      entry.holds.set(request.owner, result.leaseUntil);
    }
  };

  const ledger: Ledger = {
    async claim(request) {
      const entry = asking(request);
      let result: ClaimResult;
      try {
        result = await inner.claim(request);
      } catch (error) {
        refused(entry, request, error);
        throw error;
      }
      answered(entry, request, result);
      return result;
    },
    async claimMany(requests) {
      const entries = requests.map(asking);
      const outcomes = await inner.claimMany(requests);
      outcomes.forEach((outcome, index) => {
        const request = requests[index]!;
        if (outcome.ok) answered(entries[index]!, request, outcome.value);
        else refused(entries[index]!, request, outcome.error);
      });
      return outcomes;
    },
    settleMany(requests) {
      for (const request of requests) settling(request);
      return inner.settleMany(requests);
    },
    complete(request) {
      settling(request);
      return inner.complete(request);
    },
    fail(request) {
      settling(request);
      return inner.fail(request);
    },
    release(request) {
      settling(request);
      return inner.release(request);
    },
    get: (eventId) => inner.get(eventId),
    scanPending: (request) => inner.scanPending(request),
    scanAmbiguous: (request) => inner.scanAmbiguous(request),
    list: (request) => inner.list(request),
    prune: (request) => inner.prune(request),
    close: () => inner.close(),
  };
  return {
    ledger,
    observations: (eventId) => {
      const { refusedDigests, acceptedConflicts, overlappingClaims, claimedDigests } = log(eventId);
      return {
        refusedDigests: [...refusedDigests],
        acceptedConflicts,
        overlappingClaims,
        claimedDigests: [...claimedDigests],
      };
    },
  };
}
