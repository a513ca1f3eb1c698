/**
 * What the idempotent receiver remembers per key (Stripe's design, in memory). The key is the
 * Idempotency-Key, or the signed webhook-id when the receiver verifies signatures.
 */
export type KeyRecord =
  | { state: 'in-flight'; fingerprint: string }
  | { state: 'done'; fingerprint: string; status: number; body: string };

export type KeyDecision =
  | { action: 'process' }
  | { action: 'replay'; status: number; body: string }
  | { action: 'conflict'; status: 409 | 422; reason: string };

/**
 * The key table. `begin` is one synchronous step, so two concurrent requests cannot both take
 * the key (node runs one handler at a time between awaits).
 */
export class IdempotencyStore {
  readonly #records = new Map<string, KeyRecord>();

  begin(key: string, fingerprint: string): KeyDecision {
    const record = this.#records.get(key);
    if (!record) {
      this.#records.set(key, { state: 'in-flight', fingerprint });
      return { action: 'process' };
    }
    // A different payload under a reused key is refused first, in flight or not (draft: 422).
    if (record.fingerprint !== fingerprint) {
      return { action: 'conflict', status: 422, reason: 'Idempotency-Key reused with a different payload' };
    }
    if (record.state === 'in-flight') {
      return {
        action: 'conflict',
        status: 409,
        reason: 'a request with this Idempotency-Key is in progress',
      };
    }
    return { action: 'replay', status: record.status, body: record.body };
  }

  /** Only a 2xx is final. A failure frees the key, so the sender's retry is processed again. */
  finish(key: string, status: number, body: string): void {
    const record = this.#records.get(key);
    if (!record) return;
    if (status >= 200 && status < 300)
      this.#records.set(key, { state: 'done', fingerprint: record.fingerprint, status, body });
    else this.#records.delete(key);
  }
}
