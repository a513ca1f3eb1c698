/** One request as the simulator saw it, for tests' assertions. */
export interface SimulatorRequest {
  /** The capability id; `discovery` for both discovery routes; undefined for an unknown route. */
  capability: string | undefined;
  method: string;
  path: string;
  /** The status answered; for `dropped: 'after'` the one that would have been; 0 for `dropped: 'before'`. */
  status: number;
  requestId: string;
  /** A publish's or create's `idempotency_key`. */
  idempotencyKey?: string;
  /** publish_batch: each entry's key, undefined where an entry has none. */
  idempotencyKeys?: (string | undefined)[];
  /** Answered from the idempotency store. */
  replayed?: boolean;
  dropped?: 'before' | 'after';
  /** The simulator clock's time when it was processed. */
  at: number;
}

/** Bounded so a long benchmark does not keep every request it made. */
const MAX_KEPT = 100_000;

export class RequestLog {
  #entries: SimulatorRequest[] = [];

  add(entry: SimulatorRequest): void {
    this.#entries.push(entry);
    if (this.#entries.length > MAX_KEPT) this.#entries = this.#entries.slice(-MAX_KEPT / 2);
  }

  all(): SimulatorRequest[] {
    return [...this.#entries];
  }
}
