import { Job, type Worker } from 'bullmq';

/** A job this driver holds the lock on, and the token that lock was taken with. */
export interface HeldJob {
  job: Job;
  token: string;
  lane: LeaseLane;
}

interface Prefetched {
  held: HeldJob;
  fetchedAt: number;
}

/** Past this, a prefetched job's lock is re-taken for the receive's full lease before it is handed out. */
const FRESH_MS = 50;

/**
 * Everything received with one lease length: BullMQ takes the lock length from the Worker, so
 * there is one manual-processing Worker per lease length, and the jobs its acks fetched ahead.
 *
 * An ack fetches the next job in the same script as the completion, as BullMQ's own Worker does,
 * and keeps it here for the next receive. That makes one Redis round trip per job, not two.
 * The prefetched job is locked from the ack on, so a receive that comes later than FRESH_MS
 * extends its lock first, and jobs nobody asks for within half a lease go back to the front
 * of the wait list, so they never stall.
 */
export class LeaseLane {
  readonly worker: Worker;
  readonly lockMs: number;
  readonly #ahead: Prefetched[] = [];
  readonly #capacity: number;
  #sweep: NodeJS.Timeout | undefined;

  constructor(worker: Worker, lockMs: number, capacity: number) {
    this.worker = worker;
    this.lockMs = lockMs;
    this.#capacity = capacity;
  }

  /** Whether an ack should fetch the next job for this lane. */
  wantsMore(): boolean {
    return this.#ahead.length < this.#capacity;
  }

  /** Keeps a job an ack fetched (the raw answer of BullMQ's moveToFinished). */
  keep(next: unknown, token: string): void {
    const [json, jobId] = (Array.isArray(next) ? next : []) as [unknown, string | undefined];
    if (!json || typeof jobId !== 'string') return;
    const job = Job.fromJSON(this.worker as never, json as never, jobId);
    job.token = token;
    this.#ahead.push({ held: { job, token, lane: this }, fetchedAt: Date.now() });
    this.#sweep ??= setTimeout(() => void this.#returnStale(), Math.max(1, this.lockMs / 2)).unref();
  }

  /**
   * Up to `count` prefetched jobs whose lock lasts at least a lease from now. Older ones are
   * extended first; one whose lock is gone (BullMQ answers 0) was handed back by the stalled
   * checker and is dropped here.
   */
  async take(count: number): Promise<HeldJob[]> {
    const taken = this.#ahead.splice(0, count);
    const now = Date.now();
    const ready = await Promise.all(
      taken.map(async ({ held, fetchedAt }) => {
        if (now - fetchedAt <= FRESH_MS) return held;
        const extended = await held.job.extendLock(held.token, this.lockMs).catch(() => 0);
        return extended === 1 ? held : undefined;
      }),
    );
    return ready.filter((held): held is HeldJob => held !== undefined);
  }

  /** Hands every prefetched job back to the front of the wait list (close). */
  async returnAll(): Promise<void> {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    const all = this.#ahead.splice(0);
    await Promise.allSettled(all.map(({ held }) => held.job.moveToWait(held.token)));
  }

  async #returnStale(): Promise<void> {
    this.#sweep = undefined;
    const limit = Date.now() - this.lockMs / 4;
    const stale = this.#ahead.filter((entry) => entry.fetchedAt < limit);
    if (stale.length > 0) {
      this.#ahead.splice(0, this.#ahead.length, ...this.#ahead.filter((entry) => entry.fetchedAt >= limit));
      await Promise.allSettled(stale.map(({ held }) => held.job.moveToWait(held.token)));
    }
    if (this.#ahead.length > 0) {
      this.#sweep = setTimeout(() => void this.#returnStale(), Math.max(1, this.lockMs / 2)).unref();
    }
  }
}
