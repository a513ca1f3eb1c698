import { QueueError } from '../errors';

/**
 * What a Queue has in flight (its operations, each with its driver calls, retries and bridge
 * re-sends), so that its `close()` reaches the driver only once all of it has ended, and no
 * call comes after it: a driver keeps no closed flag of its own.
 */
export class DriverCalls {
  readonly #driverName: string;
  readonly #receives = new AbortController();
  #inFlight = 0;
  #idle: (() => void) | undefined;
  #closed = false;
  /** Resolved when a close's `timeoutMs` runs out: the drain stops waiting. */
  readonly #cut: { promise: Promise<void>; resolve: () => void } = deferred();

  constructor(driverName: string) {
    this.#driverName = driverName;
  }

  /** Aborted once the queue closes the driver: a long poll in flight then ends empty. */
  get receivesEnded(): AbortSignal {
    return this.#receives.signal;
  }

  /** True once the driver is closing: no call reaches it any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * One driver call. Refused with CLOSED once the driver is closing, and a receive once
   * receives have ended, so a retry never calls a closed driver.
   */
  run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    if (this.#closed || (operation === 'receive' && this.#receives.signal.aborted)) {
      return Promise.reject(this.closedError());
    }
    return this.hold(call);
  }

  /**
   * One operation of the Queue, counted until it ends: close waits for it, so what the
   * operation does after an answer (the next chunk, a retry, the bridge's re-send of a hop a
   * receive brought) still reaches the driver.
   */
  hold<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    let promise: Promise<T>;
    try {
      promise = work();
    } catch (error) {
      promise = Promise.reject(error);
    }
    const done = () => {
      if (--this.#inFlight === 0) this.#idle?.();
    };
    promise.then(done, done);
    return promise;
  }

  /**
   * Ends the receives in flight, waits until nothing is in flight or `cutAfter`'s bound runs
   * out, then refuses every new call. Each call is bounded by its deadline and each operation by
   * its retry policy, so the wait is too; what is still out when it ends is the driver's close
   * to end.
   */
  async drain(): Promise<void> {
    this.#receives.abort(this.closedError());
    let cut = false;
    void this.#cut.promise.then(() => {
      cut = true;
    });
    while (this.#inFlight > 0 && !cut) {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#idle = resolve;
        }),
        this.#cut.promise,
      ]);
    }
    this.#idle = undefined;
    this.#closed = true;
  }

  /** Stops the drain's wait once `bound` resolves (a close's `timeoutMs`). */
  cutAfter(bound: Promise<unknown>): void {
    void bound.then(this.#cut.resolve, () => {});
  }

  closedError(): QueueError {
    return new QueueError('CLOSED', `queue over ${this.#driverName} is closed`);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
