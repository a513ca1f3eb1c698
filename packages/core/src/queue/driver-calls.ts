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
   * Ends the receives in flight, waits until nothing is in flight, then refuses every new call.
   * Each call is bounded by its deadline and each operation by its retry policy, so this wait
   * is too.
   */
  async drain(): Promise<void> {
    this.#receives.abort(this.closedError());
    while (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
      });
    }
    this.#idle = undefined;
    this.#closed = true;
  }

  closedError(): QueueError {
    return new QueueError('CLOSED', `queue over ${this.#driverName} is closed`);
  }
}
