import { IDEMPOTENCY_WINDOW_MS } from './queue-rules';

export type IdempotencyDecision =
  | { kind: 'new' }
  | { kind: 'replay'; data: unknown }
  /** The key was used, within the window, for a different request. */
  | { kind: 'conflict' };

export interface IdempotencyScope {
  apiKey: string;
  capability: string;
}

interface KeyRecord {
  fingerprint: string;
  /** JSON text, so a replay cannot be changed by whatever the first caller did with its answer. */
  data: string;
  at: number;
}

/**
 * Idempotency keys, per API key and capability, remembered for the window on the simulator's
 * clock. Only successes are remembered: a refused request (queue missing, payload too large)
 * leaves its key free for the corrected retry. Requests run one at a time between awaits, so a
 * lookup and its `remember` cannot interleave with another request's.
 */
export class IdempotencyStore {
  readonly #records = new Map<string, KeyRecord>();

  lookup(scope: IdempotencyScope, key: string, fingerprint: string, now: number): IdempotencyDecision {
    this.#forgetExpired(now);
    const record = this.#records.get(recordKey(scope, key));
    if (!record || expired(record, now)) return { kind: 'new' };
    if (record.fingerprint !== fingerprint) return { kind: 'conflict' };
    return { kind: 'replay', data: JSON.parse(record.data) };
  }

  remember(scope: IdempotencyScope, key: string, fingerprint: string, data: unknown, now: number): void {
    const id = recordKey(scope, key);
    // Deleted first, so the map stays in time order and expiry can stop at the first live record.
    this.#records.delete(id);
    this.#records.set(id, { fingerprint, data: JSON.stringify(data), at: now });
  }

  #forgetExpired(now: number): void {
    for (const [id, record] of this.#records) {
      if (!expired(record, now)) break;
      this.#records.delete(id);
    }
  }
}

function expired(record: KeyRecord, now: number): boolean {
  return now >= record.at + IDEMPOTENCY_WINDOW_MS;
}

function recordKey(scope: IdempotencyScope, key: string): string {
  return JSON.stringify([scope.apiKey, scope.capability, key]);
}
