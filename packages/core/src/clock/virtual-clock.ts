import type { Clock } from './clock';

interface Sleeper {
  due: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told. Sleepers wake in due order as `advance` passes their time,
 * with the event loop drained between wake-ups so woken code can act before time moves on.
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      // NaN or a negative wait means "now", as setTimeout treats it.
      const wait = Number.isNaN(ms) ? 0 : Math.max(ms, 0);
      if (wait === 0) return resolve();
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        due: this.#now + wait,
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** Moves time forward by `ms`, waking every sleeper due on the way. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`cannot move a clock by ${ms} ms`);
    await this.advanceTo(this.#now + ms);
  }

  async advanceTo(target: number): Promise<void> {
    for (;;) {
      await settle();
      const next = this.#sleepers
        .filter((s) => s.due <= target)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.#sleepers = this.#sleepers.filter((s) => s !== next);
      this.#now = Math.max(this.#now, next.due);
      next.resolve();
    }
    this.#now = Math.max(this.#now, target);
    await settle();
  }
}

/** Lets promise chains woken by the clock run to their next await on real I/O or time. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
