import { Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { quarantineJob } from './foreign-job';

/** A job this driver holds the lock on, and the token that lock was taken with. */
export interface HeldJob {
  job: Job;
  token: string;
  lane: LeaseLane;
  /**
   * Why this job cannot be delivered (fields BullMQ or the driver could not read): it is handed
   * to the Queue as an invalid message, and dead-lettered without BullMQ's scripts.
   */
  broken?: string;
  /**
   * Whether the job's hash has a `parent` field at all, asked as soon as its id is known so the
   * answer is usually there before the receive hands the job out (BullMQ reads an empty one back
   * as absent, while its finishing script still decodes it).
   */
  parentField?: Promise<boolean>;
}

interface Prefetched {
  held: HeldJob;
  fetchedAt: number;
}

/** Past this, a prefetched job's lock is re-taken for the receive's full lease before it is handed out. */
const FRESH_MS = 50;
/** A fetched job nobody received within this long (or a quarter lease) goes back for other consumers. */
const MAX_IDLE_MS = 1000;
/** Takes back the start BullMQ counted (`ats`), only while the lock is still this token's. */
const UNCOUNT_START = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('HINCRBY', KEYS[2], 'ats', -1) end return -1`;

/**
 * Everything received with one lease length: BullMQ takes the lock length from the Worker, so
 * there is one manual-processing Worker per lease length, and the jobs its acks fetched ahead.
 *
 * An ack fetches the next job in the same script as the completion, as BullMQ's own Worker does,
 * and keeps it here for the next receive. That makes one Redis round trip per job, not two.
 * The prefetched job is locked from the ack on, so a receive that comes later than FRESH_MS
 * extends its lock first, and jobs nobody asks for within a second (or a quarter lease) go back
 * to the front of the wait list, so they never stall and other consumers get them.
 */
export class LeaseLane {
  readonly worker: Worker;
  readonly lockMs: number;
  /**
   * How often BullMQ reported a job scheduler it could not update for a job it took: it then
   * answers "no job" though the job is locked for the take, so the driver looks for it.
   */
  schedulerRefusals = 0;
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

  /** Keeps a job an ack fetched (the raw answer of BullMQ's moveToFinished), and returns it. */
  keep(next: unknown, token: string): HeldJob | undefined {
    const [json, jobId] = (Array.isArray(next) ? next : []) as [unknown, string | undefined];
    if (!json || typeof jobId !== 'string') return undefined;
    let held: HeldJob;
    try {
      const job = Job.fromJSON(this.worker as never, json as never, jobId);
      job.token = token;
      held = { job, token, lane: this };
    } catch {
      held = { job: this.placeholder(jobId, token), token, lane: this, broken: 'its data is not JSON' };
    }
    this.keepHeld(held);
    return held;
  }

  /** Keeps a job fetched ahead that the driver has read itself. */
  keepHeld(held: HeldJob): void {
    this.#ahead.push({ held, fetchedAt: Date.now() });
    this.#scheduleSweep();
  }

  /** A Job that only names a job BullMQ could not read: enough to extend its lock and dead-letter it. */
  placeholder(jobId: string, token: string): Job {
    const job = new Job(this.worker as never, '', {}, {}, jobId);
    job.token = token;
    return job;
  }

  /** The fresh prefetched jobs at the head of the line, at once: a busy consumer's usual receive. */
  takeFresh(count: number): HeldJob[] {
    const now = Date.now();
    let fresh = 0;
    while (fresh < count && fresh < this.#ahead.length && now - this.#ahead[fresh]!.fetchedAt <= FRESH_MS)
      fresh++;
    return fresh === 0 ? [] : this.#ahead.splice(0, fresh).map(({ held }) => held);
  }

  /**
   * Up to `count` prefetched jobs whose lock lasts at least a lease from now. Older ones are
   * extended first; one whose lock is gone (BullMQ answers 0) was handed back by the stalled
   * checker and is dropped here.
   */
  async take(count: number): Promise<HeldJob[]> {
    if (this.#ahead.length === 0) return [];
    const taken = this.#ahead.splice(0, count);
    const now = Date.now();
    if (taken.every(({ fetchedAt }) => now - fetchedAt <= FRESH_MS)) return taken.map(({ held }) => held);
    const ready = await Promise.all(
      taken.map(async ({ held, fetchedAt }) => {
        if (now - fetchedAt <= FRESH_MS) return held;
        const extended = await held.job.extendLock(held.token, this.lockMs).catch(() => 0);
        return extended === 1 ? held : undefined;
      }),
    );
    return ready.filter((held): held is HeldJob => held !== undefined);
  }

  /** Keeps jobs a receive took but could not hand out (it was aborted meanwhile). */
  putBack(held: readonly HeldJob[]): void {
    const now = Date.now();
    for (const job of held) this.#ahead.push({ held: job, fetchedAt: now });
    if (held.length > 0) this.#scheduleSweep();
  }

  /** Hands every prefetched job back to the front of the wait list (close). */
  async returnAll(): Promise<void> {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    await this.#handBack(this.#ahead.splice(0));
  }

  #scheduleSweep(): void {
    this.#sweep ??= setTimeout(() => void this.#returnStale(), this.#idleMs()).unref();
  }

  /** How long a fetched job may wait for a receive before it goes back for other consumers. */
  #idleMs(): number {
    return Math.max(1, Math.min(MAX_IDLE_MS, this.lockMs / 4));
  }

  async #returnStale(): Promise<void> {
    this.#sweep = undefined;
    const limit = Date.now() - this.#idleMs();
    const stale = this.#ahead.filter((entry) => entry.fetchedAt <= limit);
    if (stale.length > 0) {
      this.#ahead.splice(0, this.#ahead.length, ...this.#ahead.filter((entry) => entry.fetchedAt > limit));
      await this.#handBack(stale);
    }
    if (this.#ahead.length > 0) this.#scheduleSweep();
  }

  /**
   * Back to the front of the wait list, and the start BullMQ counted for the fetch taken back
   * first (while the lock still proves the job is ours): no application saw that delivery, and
   * it must not count towards anyone's retry.maxAttempts.
   */
  async #handBack(entries: readonly Prefetched[]): Promise<void> {
    await Promise.allSettled(
      entries.map(async ({ held }) => {
        const { job, token } = held;
        const client = (await this.worker.getBackend().client) as unknown as Redis;
        // Back in the wait list it would only fail the next receive again.
        if (held.broken) return quarantineJob(client, job.queueQualifiedName, job.id!, token, held.broken);
        const key = `${job.queueQualifiedName}:${job.id}`;
        await client.eval(UNCOUNT_START, 2, `${key}:lock`, key, token);
        await job.moveToWait(token);
      }),
    );
  }
}
