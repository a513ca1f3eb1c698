import { ABORTED, untilAborted } from './until-aborted';

/**
 * How soon a receive must answer once its signal aborts: before the event loop has turned this
 * many times (`setImmediate` turns), with no message. The conformance suite's long-poll property
 * checks exactly this, so a driver that waits for its provider's answer first fails it.
 */
export const ABORTED_RECEIVE_TURNS = 20;

/**
 * The abort rule for a receive whose provider call cannot be taken back in flight (a SQL
 * statement, a consumer's deliveries): the receive answers at once when its signal aborts, and
 * whatever the call takes after that goes back to the provider through `giveBack`, since no one
 * will ever see it. One per driver; `close()` waits for `drained()`, so no give-back is cut off.
 */
export class AbandonedTakes {
  readonly #inFlight = new Set<Promise<unknown>>();

  /**
   * `taking`'s value, or undefined as soon as a signal aborts (or at once when one already has):
   * the receive's own, and the driver's closing signal where it has one. An abandoned take runs
   * on; its messages go to `giveBack`, and a failure there leaves them to their lease, as a
   * crash would. A take that fails after its receive was abandoned is dropped: nobody waits for it.
   */
  async unlessAborted<T>(
    taking: Promise<readonly T[]>,
    signals: AbortSignal | readonly (AbortSignal | undefined)[] | undefined,
    giveBack: (taken: readonly T[]) => unknown,
  ): Promise<T[] | undefined> {
    const taken = await untilAborted(taking, signals);
    if (taken !== ABORTED) return [...taken];
    this.#giveBackLater(taking, giveBack);
    return undefined;
  }

  /** Resolves once every give-back started so far has ended, whatever its outcome. */
  async drained(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #giveBackLater<T>(taking: Promise<readonly T[]>, giveBack: (taken: readonly T[]) => unknown): void {
    const giving = taking
      .then((taken) => (taken.length > 0 ? giveBack(taken) : undefined))
      .catch(() => undefined)
      .finally(() => this.#inFlight.delete(giving));
    this.#inFlight.add(giving);
  }
}
