import type { Clock } from '@queueport/core';
import type { DestinationStateStore } from '@queueport/ledger';

/**
 * Which destinations are disabled, as this worker last read them from the ledger: one query at
 * most every `refreshMs`, shared by every delivery. A disable made elsewhere (the CLI, another
 * worker) is seen within that time; an enable is seen at once where it matters, because a park
 * re-checks the durable state in its own transaction and refuses when the destination is enabled.
 */
export class DestinationStateCache {
  readonly #store: DestinationStateStore;
  readonly #clock: Clock;
  readonly #refreshMs: number;
  readonly #onLoaded: (disabled: ReadonlySet<string>) => void;
  #disabled = new Set<string>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;
  /** Marks made while a read was out, applied over what it brings back (it may predate them). */
  #marks = new Map<string, boolean>();

  constructor(
    store: DestinationStateStore,
    clock: Clock,
    refreshMs: number,
    onLoaded: (disabled: ReadonlySet<string>) => void = () => {},
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#refreshMs = refreshMs;
    this.#onLoaded = onLoaded;
  }

  /** Re-reads the state when the last read is older than `refreshMs`; otherwise resolves at once. */
  refresh(): Promise<void> {
    if (this.#clock.now() - this.#loadedAt < this.#refreshMs) return Promise.resolve();
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  isDisabled(destinationId: string): boolean {
    return this.#disabled.has(destinationId);
  }

  mark(destinationId: string, disabled: boolean): void {
    if (disabled) this.#disabled.add(destinationId);
    else this.#disabled.delete(destinationId);
    if (this.#loading) this.#marks.set(destinationId, disabled);
  }

  async #load(): Promise<void> {
    this.#marks = new Map();
    const startedAt = this.#clock.now();
    const disabled = new Set(await this.#store.disabledIds());
    for (const [id, mark] of this.#marks) {
      if (mark) disabled.add(id);
      else disabled.delete(id);
    }
    this.#disabled = disabled;
    this.#loadedAt = startedAt;
    this.#onLoaded(disabled);
  }
}
