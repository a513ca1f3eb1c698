import type { Clock } from '../clock';
import type { Delivery } from '../queue/delivery';

/**
 * A handler's `context.signal`, made only when the handler asks for it: most handlers never
 * do, and an AbortController per delivery is a measurable share of a fast pipeline's cost.
 */
export class LeaseLostSignal {
  #controller: AbortController | undefined;
  #lost: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#lost) this.#controller.abort(this.#lost.reason);
    }
    return this.#controller.signal;
  }

  lose(reason: unknown): void {
    if (this.#lost) return;
    this.#lost = { reason };
    this.#controller?.abort(reason);
  }
}

interface Held {
  delivery: Delivery;
  context: LeaseLostSignal;
  /** Clock time of the next extension. */
  dueAt: number;
  extending: Promise<void> | undefined;
  released: boolean;
}

/** What a handler's delivery holds while it runs; `release` once the handler is done. */
export interface HeldLease {
  readonly context: LeaseLostSignal;
  /** Stops extending; resolves once an extension already under way has finished. */
  release(): Promise<void>;
}

/**
 * Keeps the leases of every delivery a consumer is handling alive with one timer for all of
 * them, extending each every half lease. All share one interval, and each is (re)inserted when
 * its next extension is scheduled, so the map's order is due order: the timer only ever waits
 * for the first entry. The timer stops once no delivery is held across an event-loop turn, so
 * an idle consumer keeps nothing scheduled, while a busy one never re-arms per delivery.
 */
export class LeaseKeeper {
  readonly #clock: Clock;
  readonly #leaseSeconds: number;
  readonly #intervalMs: number;
  readonly #onLost: (error: unknown, delivery: Delivery) => void;
  readonly #held = new Map<Delivery, Held>();
  #timer: AbortController | undefined;
  #stopCheck = false;

  constructor(clock: Clock, leaseSeconds: number, onLost: (error: unknown, delivery: Delivery) => void) {
    this.#clock = clock;
    this.#leaseSeconds = leaseSeconds;
    this.#intervalMs = (leaseSeconds * 1000) / 2;
    this.#onLost = onLost;
  }

  hold(delivery: Delivery): HeldLease {
    const held: Held = {
      delivery,
      context: new LeaseLostSignal(),
      dueAt: this.#clock.now() + this.#intervalMs,
      extending: undefined,
      released: false,
    };
    this.#schedule(held);
    return {
      context: held.context,
      release: () => {
        held.released = true;
        this.#held.delete(delivery);
        this.#stopWhenIdle();
        return held.extending ?? Promise.resolve();
      },
    };
  }

  #schedule(held: Held): void {
    this.#held.set(held.delivery, held);
    if (this.#timer) return;
    const timer = new AbortController();
    this.#timer = timer;
    void this.#run(timer);
  }

  /** The timer's loop; it gives up its place as it ends, so the next hold starts a new one at once. */
  async #run(timer: AbortController): Promise<void> {
    while (!timer.signal.aborted) {
      const first: Held | undefined = this.#held.values().next().value;
      if (!first) break;
      const wait = first.dueAt - this.#clock.now();
      if (wait > 0) {
        try {
          await this.#clock.sleep(wait, timer.signal);
        } catch {
          break;
        }
      }
      const now = this.#clock.now();
      for (const held of [...this.#held.values()]) {
        if (held.dueAt > now) break;
        this.#held.delete(held.delivery);
        held.extending = this.#extend(held);
      }
    }
    if (this.#timer === timer) this.#timer = undefined;
  }

  async #extend(held: Held): Promise<void> {
    try {
      await held.delivery.extendLease(this.#leaseSeconds);
    } catch (error) {
      this.#onLost(error, held.delivery);
      held.context.lose(error);
      return;
    } finally {
      held.extending = undefined;
    }
    if (held.released) return;
    held.dueAt = this.#clock.now() + this.#intervalMs;
    this.#schedule(held);
  }

  /**
   * Stops the timer if nothing is held one macrotask turn from now (a busy consumer refills at
   * once). An extension still under way re-arms it when it reschedules its lease.
   */
  #stopWhenIdle(): void {
    if (this.#stopCheck || this.#held.size > 0) return;
    this.#stopCheck = true;
    setImmediate(() => {
      this.#stopCheck = false;
      if (this.#held.size > 0) return;
      this.#timer?.abort('no delivery held');
      this.#timer = undefined;
    });
  }
}
