import type { QueueError } from '@queueport/core';
import { invalidArgument } from '../errors';
import type { BatchOutcome } from '../ledger';

/**
 * How per-event calls are grouped into one commit. Concurrent calls made within one turn of the
 * event loop, and those that arrive while `maxInFlight` batches are already being written, go out
 * together, up to `maxEntries` a batch. `false` writes each call on its own, as before group
 * commit existed.
 */
export type GroupCommitOptions = { maxEntries?: number; maxInFlight?: number } | false;

export const DEFAULT_GROUP_MAX_ENTRIES = 64;
const MAX_GROUP_ENTRIES = 1000;
const MAX_IN_FLIGHT = 64;

export interface GroupCommitSettings {
  maxEntries: number;
  maxInFlight: number;
}

/** The settings an option asks for; `undefined` for `false` (no grouping). Refuses nonsense early. */
export function groupCommitSettings(
  options: GroupCommitOptions | undefined,
  defaults: GroupCommitSettings,
): GroupCommitSettings | undefined {
  if (options === false) return undefined;
  if (options === undefined) return defaults;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArgument('groupCommit must be false or { maxEntries?, maxInFlight? }', {
      field: 'groupCommit',
    });
  }
  const maxEntries = options.maxEntries ?? defaults.maxEntries;
  const maxInFlight = options.maxInFlight ?? defaults.maxInFlight;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_GROUP_ENTRIES) {
    throw invalidArgument(`groupCommit.maxEntries must be a whole number from 1 to ${MAX_GROUP_ENTRIES}`, {
      field: 'groupCommit.maxEntries',
    });
  }
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
    throw invalidArgument(`groupCommit.maxInFlight must be a whole number from 1 to ${MAX_IN_FLIGHT}`, {
      field: 'groupCommit.maxInFlight',
    });
  }
  return { maxEntries, maxInFlight };
}

interface Waiter<Request, Result> {
  request: Request;
  resolve: (value: Result) => void;
  reject: (error: QueueError | unknown) => void;
}

/**
 * Groups single calls into batches for a store's `claimMany` / `settleMany`. A caller's promise
 * settles only when the batch holding its entry has committed (or failed), with that entry's own
 * outcome: one entry's error never reaches another caller.
 */
export class GroupCommit<Request, Result> {
  readonly #write: (batch: Request[]) => Promise<BatchOutcome<Result>[]>;
  readonly #settings: GroupCommitSettings;
  #queued: Waiter<Request, Result>[] = [];
  #inFlight = 0;
  #scheduled = false;
  readonly #idle = new Set<() => void>();

  constructor(write: (batch: Request[]) => Promise<BatchOutcome<Result>[]>, settings: GroupCommitSettings) {
    this.#write = write;
    this.#settings = settings;
  }

  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queued.push({ request, resolve, reject });
      this.#schedule();
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
    // One turn: every call made by callbacks of this I/O phase joins the batch.
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
        if (outcome === undefined)
          waiter.reject(new Error('ledger: a batch returned fewer outcomes than entries'));
        else if (outcome.ok) waiter.resolve(outcome.value);
        else waiter.reject(outcome.error);
      });
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    } finally {
      this.#inFlight--;
      // What arrived while this batch was on the wire goes next, without waiting another turn.
      if (this.#queued.length > 0) this.#flush();
      else if (this.#inFlight === 0) {
        for (const resolve of this.#idle) resolve();
        this.#idle.clear();
      }
    }
  }
}
