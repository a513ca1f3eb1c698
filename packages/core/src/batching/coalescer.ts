/** One entry's result in a batch: its value, or its own error (which never reaches another entry). */
export type EntryOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface CoalescerSettings {
  /** Entries a batch takes at most (a provider's batch size, a store's statement bound). */
  maxEntries: number;
  /** Batches being written at once; what arrives while that many are out forms the next. */
  maxInFlight: number;
}

interface Waiter<Request, Result> {
  request: Request;
  resolve: (value: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns concurrent single calls into batches: the calls made within one turn of the event loop,
 * and those that arrive while `maxInFlight` batches are being written, go to `write` together,
 * up to `maxEntries` a batch. Each caller's promise settles only when the batch holding its entry
 * has been written, with that entry's own outcome; a batch that fails as a whole fails each of
 * its callers with that error. The ledger's group commit and the Queue's coalesced settles are
 * this one mechanism.
 */
export class Coalescer<Request, Result> {
  readonly #write: (batch: Request[]) => Promise<EntryOutcome<Result>[]>;
  readonly #settings: CoalescerSettings;
  #queued: Waiter<Request, Result>[] = [];
  #inFlight = 0;
  #scheduled = false;
  readonly #idle = new Set<() => void>();

  constructor(write: (batch: Request[]) => Promise<EntryOutcome<Result>[]>, settings: CoalescerSettings) {
    this.#write = write;
    this.#settings = settings;
  }

  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queued.push({ request, resolve, reject });
      // A full batch need not wait for the turn to end.
      if (this.#queued.length >= this.#settings.maxEntries) this.#flush();
      else this.#schedule();
    });
  }

  /** Resolves once every call submitted so far has been written (for close). */
  drained(): Promise<void> {
    if (this.#queued.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.add(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#settings.maxInFlight) return;
    this.#scheduled = true;
    // One turn: every call made by the callbacks of this I/O phase joins the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#queued.length > 0 && this.#inFlight < this.#settings.maxInFlight) {
      const batch = this.#queued.splice(0, this.#settings.maxEntries);
      this.#inFlight++;
      void this.#run(batch);
    }
  }

  async #run(batch: Waiter<Request, Result>[]): Promise<void> {
    try {
      const outcomes = await this.#write(batch.map((waiter) => waiter.request));
      batch.forEach((waiter, index) => {
        const outcome = outcomes[index];
        if (outcome === undefined) waiter.reject(new Error('a batch returned fewer outcomes than entries'));
        else if (outcome.ok) waiter.resolve(outcome.value);
        else waiter.reject(outcome.error);
      });
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    } finally {
      this.#inFlight--;
      // What arrived while this batch was out goes next, without waiting another turn.
      if (this.#queued.length > 0) this.#flush();
      else if (this.#inFlight === 0) {
        for (const resolve of this.#idle) resolve();
        this.#idle.clear();
      }
    }
  }
}
