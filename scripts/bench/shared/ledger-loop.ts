/** The ledger scenarios' loops: as many steps as fit in a time slice, each on a distinct id. */
import { performance } from 'node:perf_hooks';
import { payloadDigest } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { type Side, timed } from '../runner';

export const DIGEST = payloadDigest({ amount: 4200, currency: 'EUR' });

/** How many callers the grouped ledger scenarios run at once: the DeliveryWorker's usual concurrency. */
export const LEDGER_CONCURRENCY = 16;

/**
 * `loops` callers each doing `step` back to back until the slice ends. Checking the clock every
 * step costs next to nothing beside a durable commit.
 */
export function forSlice(ms: number, step: () => Promise<void> | void, loops = 1, idsPerStep = 1): Side {
  return () =>
    timed(async () => {
      const start = performance.now();
      let ops = 0;
      const loop = async () => {
        while (performance.now() - start < ms) {
          await step();
          ops += idsPerStep;
        }
      };
      await Promise.all(Array.from({ length: loops }, loop));
      return ops;
    });
}

/** Distinct ids across warm-up and rounds: a repeat would be a cheaper conflict, not a claim. */
export function ids(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}:${next++}`;
}

export function claimAndComplete(ledger: Ledger): () => Promise<void> {
  const nextId = ids('ledger');
  return async () => {
    const eventId = nextId();
    const claimed = await ledger.claim({ eventId, payloadSha256: DIGEST, owner: 'bench', leaseSeconds: 30 });
    if (claimed.status !== 'claimed') throw new Error(`claim of ${eventId} returned ${claimed.status}`);
    await ledger.complete({ eventId, owner: 'bench', outcome: 'http 200' });
  };
}

export function sliceMs(quick: boolean): number {
  return quick ? 200 : 3000;
}
