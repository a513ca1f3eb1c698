import { type JsonValue, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import type { LoadedPayload, PayloadLoader } from '../../src/reconcile-entry';

/** What the application's own store holds: the payloads the ledger only knows by digest. */
export class PayloadStore {
  readonly #payloads = new Map<string, LoadedPayload>();

  add(eventId: string, payload: JsonValue = { eventId, amount: 4200 }): LoadedPayload {
    const loaded = { type: 'payment.settled', payload };
    this.#payloads.set(eventId, loaded);
    return loaded;
  }

  digestOf(eventId: string): string {
    return payloadDigest(this.#payloads.get(eventId)!.payload);
  }

  /** The loader, optionally slowed down per call. */
  loader(delayMs = 0): PayloadLoader {
    return async (eventId) => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return this.#payloads.get(eventId);
    };
  }

  json(): Record<string, LoadedPayload> {
    return Object.fromEntries(this.#payloads);
  }
}

export interface SeededLedger {
  /** Pending, untouched for two hours: what reconcile must republish. */
  stale: string[];
  /** Of the stale ones, those flagged ambiguous (also listed). */
  staleAmbiguous: string[];
  /** Delivered long ago, ambiguous: listed, never republished. */
  deliveredAmbiguous: string[];
  delivered: string[];
  failed: string[];
  /** Pending, but touched a moment ago: not stuck yet. */
  fresh: string[];
  /** Pending and stale, but their next retry is still to come: the queue holds them. */
  scheduled: string[];
}

const HOUR = 3_600_000;

/**
 * Rows as real workers leave them, written through claims: first on a clock two hours back
 * (so their last update is old), then on the real clock for the fresh ones.
 */
export async function seedLedger(
  file: string,
  store: PayloadStore,
  options: { stale?: number } = {},
): Promise<SeededLedger> {
  const seeded: SeededLedger = {
    stale: [],
    staleAmbiguous: [],
    deliveredAmbiguous: [],
    delivered: [],
    failed: [],
    fresh: [],
    scheduled: [],
  };
  const clock = new VirtualClock(Date.now() - 2 * HOUR);
  const past = await openSqliteLedger({ filename: file, clock });
  const claim = (ledger: Ledger, eventId: string, owner: string, leaseSeconds = 60) =>
    ledger.claim({ eventId, payloadSha256: store.digestOf(eventId), owner, leaseSeconds });
  const make = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}_${String(i + 1).padStart(3, '0')}`);
  try {
    for (const [i, id] of make('stale', options.stale ?? 5).entries()) {
      store.add(id);
      await claim(past, id, `w-${id}`);
      // Half released after a retryable answer whose retry time has passed, half crashed mid-attempt.
      if (i % 2 === 0)
        await past.release({
          eventId: id,
          owner: `w-${id}`,
          outcome: 'http 503',
          retryAt: clock.now() + 1_000,
        });
      seeded.stale.push(id);
    }
    for (const id of make('delivered', 2)) {
      store.add(id);
      await claim(past, id, 'w-d');
      await past.complete({ eventId: id, owner: 'w-d', outcome: 'http 200' });
      seeded.delivered.push(id);
    }
    for (const id of make('failed', 2)) {
      store.add(id);
      await claim(past, id, 'w-f');
      await past.fail({ eventId: id, owner: 'w-f', outcome: 'http 400' });
      seeded.failed.push(id);
    }
    for (const id of make('scheduled', 1)) {
      store.add(id);
      await claim(past, id, 'w-s');
      await past.release({ eventId: id, owner: 'w-s', outcome: 'http 429', retryAt: Date.now() + 3 * HOUR });
      seeded.scheduled.push(id);
    }
    // Ambiguous: a lease lapsed with no outcome recorded, and another worker took the event again.
    store.add('ambiguous_pending');
    store.add('ambiguous_delivered');
    await claim(past, 'ambiguous_pending', 'w-crashed');
    await claim(past, 'ambiguous_delivered', 'w-crashed');
    await clock.advance(120_000);
    await claim(past, 'ambiguous_pending', 'w-again');
    await claim(past, 'ambiguous_delivered', 'w-again');
    await past.complete({ eventId: 'ambiguous_delivered', owner: 'w-again', outcome: 'http 200' });
    seeded.stale.push('ambiguous_pending');
    seeded.staleAmbiguous.push('ambiguous_pending');
    seeded.deliveredAmbiguous.push('ambiguous_delivered');
  } finally {
    await past.close();
  }
  const present = await openSqliteLedger({ filename: file });
  try {
    for (const [i, id] of make('fresh', 2).entries()) {
      store.add(id);
      await claim(present, id, `w-${id}`);
      if (i === 0) await present.release({ eventId: id, owner: `w-${id}`, outcome: 'http 503' });
      seeded.fresh.push(id);
    }
  } finally {
    await present.close();
  }
  return seeded;
}
