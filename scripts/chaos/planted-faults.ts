/**
 * Faults planted on purpose, to prove the checker reports what a broken delivery system does.
 * Each wraps one real part of a worker process; none is ever used outside the campaign.
 */
import { randomUUID } from 'node:crypto';
import type { Ledger } from '@queueport/ledger';
import type { WebhookSender } from '@queueport/webhook';

export const PLANTED_FAULTS = ['ack-before-send', 'fresh-key', 'forget-claim'] as const;
export type PlantedFault = (typeof PLANTED_FAULTS)[number];

/** Every attempt under a key of its own, as a sender that minted the key per request would. */
export function freshKeyPerAttempt(sender: WebhookSender): WebhookSender {
  return new Proxy(sender, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      const send: WebhookSender['send'] = (request, signal) =>
        target.send({ ...request, eventId: `${request.eventId}#${randomUUID()}` }, signal);
      return send;
    },
  });
}

/**
 * The first claim of each event answers "claimed" without writing it, as a store that lost the
 * commit would: the completion then finds no row, the message goes back, and the next claim is
 * a fresh first attempt, flagged by nothing.
 */
export function forgetFirstClaims(ledger: Ledger): Ledger {
  const forgotten = new Set<string>();
  return new Proxy(ledger, {
    get(target, property, receiver) {
      if (property !== 'claim') return Reflect.get(target, property, receiver);
      const claim: Ledger['claim'] = async (request) => {
        if (forgotten.has(request.eventId)) return target.claim(request);
        forgotten.add(request.eventId);
        const now = Date.now();
        const leaseUntil = now + request.leaseSeconds * 1000;
        return {
          status: 'claimed',
          attempt: 1,
          leaseUntil,
          record: {
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
          },
        };
      };
      return claim;
    },
  });
}
