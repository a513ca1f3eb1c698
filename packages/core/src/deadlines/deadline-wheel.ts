/**
 * Whole-request deadlines for undici calls without an AbortSignal per call (a signal and its
 * listeners cost about 15 µs a call, measured). Calls whose deadlines fall in the same slot of
 * `resolutionMs` share one signal-like object and one timer; undici listens to it through its
 * `addEventListener` and stops listening when the response body closes, so the deadline covers
 * connecting, the headers and every byte of the body, where undici's own phase timers restart
 * on each chunk. A deadline fires at most `resolutionMs` late, never early.
 */
export class DeadlineWheel {
  readonly #slots = new Map<number, DeadlineSlot>();
  readonly #resolutionMs: number;

  constructor(resolutionMs = 50) {
    this.#resolutionMs = resolutionMs;
  }

  /**
   * The signal a call passes to undici: aborted, with `DEADLINE_PASSED` as its reason, once
   * `timeoutMs` is over, or with the caller's reason when the caller's `signal` aborts first.
   */
  signalFor(timeoutMs: number, signal?: AbortSignal): DeadlineSlot | LinkedSignal {
    const slot = this.#slotFor(timeoutMs);
    return signal ? new LinkedSignal(slot, signal) : slot;
  }

  #slotFor(timeoutMs: number): DeadlineSlot {
    const index = Math.ceil((performance.now() + timeoutMs) / this.#resolutionMs);
    let slot = this.#slots.get(index);
    if (!slot) {
      const created = new DeadlineSlot();
      slot = created;
      this.#slots.set(index, created);
      const timer = setTimeout(
        () => {
          this.#slots.delete(index);
          created.fire();
        },
        Math.max(0, index * this.#resolutionMs - performance.now()),
      );
      // A pending deadline must never keep the process alive on its own.
      timer.unref?.();
    }
    return slot;
  }
}

/** What undici rejects with when a slot fires; the caller maps it to its own typed error. */
export const DEADLINE_PASSED: Error = Object.freeze(
  Object.assign(new Error('the call deadline passed'), { code: 'QUEUEPORT_DEADLINE_PASSED' }),
) as Error;

/** The part of EventTarget undici uses (`util.addAbortListener`), with listeners in a Set. */
export class DeadlineSlot {
  aborted = false;
  reason: Error | undefined;
  readonly #listeners = new Set<() => void>();

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) queueMicrotask(listener);
    else this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }

  fire(): void {
    this.aborted = true;
    this.reason = DEADLINE_PASSED;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // One call's abort must not keep the others in the slot from theirs.
      }
    }
    this.#listeners.clear();
  }
}

/**
 * A slot's deadline and a caller's signal as one (`AbortSignal.any` with a timeout costs about
 * 40 µs a call, measured; this, well under one): it listens to both only while undici listens
 * to it.
 */
export class LinkedSignal {
  aborted = false;
  reason: unknown;
  readonly #slot: DeadlineSlot;
  readonly #signal: AbortSignal;
  #listener: (() => void) | undefined;
  readonly #onAbort = () => this.#fire(this.#signal.reason);
  readonly #onDeadline = () => this.#fire(DEADLINE_PASSED);

  constructor(slot: DeadlineSlot, signal: AbortSignal) {
    this.#slot = slot;
    this.#signal = signal;
    if (signal.aborted) {
      this.aborted = true;
      this.reason = signal.reason;
    }
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) {
      queueMicrotask(listener);
      return;
    }
    this.#listener = listener;
    this.#signal.addEventListener('abort', this.#onAbort, { once: true });
    this.#slot.addEventListener('abort', this.#onDeadline);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.#listener !== listener) return;
    this.#listener = undefined;
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#slot.removeEventListener('abort', this.#onDeadline);
  }

  #fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.removeEventListener('abort', listener as () => void);
    listener?.();
  }
}
