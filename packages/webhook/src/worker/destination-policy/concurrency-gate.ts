/**
 * At most `limit` sends to one destination in flight. Waiters queue in arrival order; a slot
 * freed goes straight to the next waiter.
 */
export class ConcurrencyGate {
  #limit: number;
  #inFlight = 0;
  readonly #waiters: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** A destination's limit may change between sends; a higher one lets waiters in at once. */
  setLimit(limit: number): void {
    this.#limit = limit;
    while (this.#inFlight < this.#limit && this.#waiters.length > 0) {
      this.#inFlight++;
      this.#waiters.shift()!();
    }
  }

  /** Resolves with a slot; rejects with the signal's reason when it aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#inFlight < this.#limit) {
      this.#inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const admit = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(admit);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      this.#waiters.push(admit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.#inFlight <= this.#limit ? this.#waiters.shift() : undefined;
    if (next) next();
    else this.#inFlight--;
  }
}
