import { randomUUID } from 'node:crypto';
import {
  type Capabilities,
  type DeadLetterEntry,
  type Driver,
  type DriverMessage,
  type ExtendEntry,
  type OutgoingMessage,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
} from '@queueport/core/driver';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { ChainableCommander, Redis } from 'ioredis';
import {
  type BullmqDriverOptions,
  bullmqCapabilities,
  type ResolvedOptions,
  resolveOptions,
} from './bullmq-options';
import { classifyBullmqError } from './classify-error';
import { decodeJobData, encodeJobData, type JobData } from './job-data';
import { jobIdFor } from './job-id';
import { MarkerWait } from './marker-wait';
import { existenceKey } from './queue-keys';

/** BullMQ fails a job once it stalled more often than this; queueport's consumers decide instead. */
const UNBOUNDED_STALLS = Number.MAX_SAFE_INTEGER;
/** How long a publish trusts that the queue still exists before it looks again. */
const EXISTS_TRUST_MS = 1000;

/**
 * A BullMQ queue as a queueport driver, over BullMQ's manual-processing API.
 *
 * - A lease is BullMQ's job lock: receive takes jobs with a lock token of its own, extension is
 *   `extendLock`, ack is completion, release is a move to the delayed set, dead-lettering a
 *   move to the failed set. Every settle names the token, so a lock that ran out and was taken
 *   again is refused by BullMQ itself (LEASE_LOST), never acked twice.
 * - Something must hand back jobs whose lock ran out: the driver runs BullMQ's stalled checker
 *   as soon as it receives, with stalls unbounded, so a crash never fails a job.
 * - Throughput: a receive takes up to `batch.receive` jobs in one burst of pipelined commands,
 *   and a settle batch is one burst too, so the round trips per job stay those of BullMQ's own
 *   Worker.
 */
export class BullmqDriver implements Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly classifyError = classifyBullmqError;
  readonly #options: ResolvedOptions;
  readonly #connection: Redis;
  readonly #ownsConnection: boolean;
  readonly #queue: Queue;
  /** One manual-processing Worker per lock duration: BullMQ takes the lock length from the worker. */
  readonly #workers = new Map<number, Worker>();
  /** The jobs this driver holds a lock on, by lock token (the receipt). */
  readonly #held = new Map<string, Job>();
  readonly #closing = new AbortController();
  readonly #markers: MarkerWait;
  readonly #instance = randomUUID().slice(0, 8);
  #seq = 0;
  #existsUntil = 0;
  #closed = false;

  /** `ownsConnection`: close it on close(), for a connection the adapter opened from a URL. */
  constructor(options: BullmqDriverOptions & { ownsConnection?: boolean }) {
    if (
      typeof options?.queueName !== 'string' ||
      options.queueName === '' ||
      options.queueName.includes(':')
    ) {
      throw new QueueError('INVALID_ARGUMENT', 'queueName must be a non-empty string without ":"', {
        details: { field: 'queueName' },
      });
    }
    this.#options = resolveOptions(options);
    this.#connection = options.connection;
    this.#ownsConnection = options.ownsConnection === true;
    this.name = options.name ?? `bullmq:${options.queueName}`;
    this.capabilities = bullmqCapabilities(this.#options);
    this.#queue = new Queue(options.queueName, {
      connection: this.#connection,
      prefix: this.#options.prefix,
    });
    this.#queue.on('error', () => {});
    this.#markers = new MarkerWait(this.#connection, this.#queue.keys.marker!);
  }

  /** Marks the queue as existing (as opening it does), so deleting it later is noticed. */
  async ensureExists(): Promise<void> {
    await this.#connection.set(
      existenceKey(this.#options.prefix, this.#queue.name),
      String(Date.now()),
      'NX',
    );
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    this.#assertOpen();
    await this.#assertExists(false);
    const client = await this.#queue.getBackend().client;
    // One transaction: whether each job or its dedupe key existed is read in the same atomic step
    // as the add, because BullMQ answers a duplicate exactly as it answers a new job.
    // BullMQ's transaction is ioredis's own MULTI with its script runner added.
    const multi = client.multi() as unknown as ChainableCommander;
    for (const message of messages) {
      const jobId = jobIdFor(message.dedupeKey);
      const job = new Job(this.#queue, message.eventId, encodeJobData(message), {
        jobId,
        delay: Math.round(message.delaySeconds * 1000),
        attempts: 1,
        deduplication: { id: jobId, ttl: this.#options.dedupeWindowSeconds * 1000 },
      });
      multi.exists(this.#queue.toKey(jobId));
      multi.exists(`${this.#queue.keys.de}:${jobId}`);
      try {
        // Queues the add on the transaction synchronously; its answer comes from exec.
        job.addJob(multi as never).catch(() => {});
      } catch (raw) {
        multi.discard();
        throw new QueueError('INTERNAL', `${this.name}: BullMQ refused job ${jobId}: ${messageOf(raw)}`);
      }
    }
    const results = (await multi.exec()) ?? [];
    return messages.map((_, index): PublishOutcome => {
      const [jobError, jobExisted] = results[index * 3] ?? [];
      const [dedupeError, dedupeExisted] = results[index * 3 + 1] ?? [];
      const [addError, added] = results[index * 3 + 2] ?? [];
      const failure = addError ?? jobError ?? dedupeError;
      if (failure || typeof added !== 'string') {
        return { ok: false, error: this.#error(failure ?? new Error(`add answered ${String(added)}`)) };
      }
      return { ok: true, messageId: added, duplicate: jobExisted === 1 || dedupeExisted === 1 };
    });
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.#assertOpen();
    const worker = this.#worker(Math.round(request.leaseSeconds * 1000));
    const deadline = Date.now() + request.waitSeconds * 1000;
    const signal = request.signal
      ? AbortSignal.any([request.signal, this.#closing.signal])
      : this.#closing.signal;
    for (;;) {
      if (signal.aborted) return [];
      const jobs = await this.#take(worker, request.maxMessages);
      if (jobs.length > 0 || signal.aborted) return jobs;
      await this.#assertExists(true);
      const left = deadline - Date.now();
      if (left <= 0) return [];
      await this.#markers.wait(left, signal);
    }
  }

  ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(receipts, (job, token) => job.moveToCompleted(null, token, false), true);
  }

  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    const delays = new Map(entries.map((entry) => [entry.receipt, entry.delaySeconds]));
    return this.#settle(
      entries.map((entry) => entry.receipt),
      (job, token) => job.moveToDelayed(Date.now() + Math.round(delays.get(token)! * 1000), token),
      true,
    );
  }

  extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    const leases = new Map(entries.map((entry) => [entry.receipt, entry.leaseSeconds]));
    return this.#settle(
      entries.map((entry) => entry.receipt),
      async (job, token) => {
        const extended = await job.extendLock(token, Math.round(leases.get(token)! * 1000));
        if (extended !== 1) throw lockLost(job.id);
      },
      false,
    );
  }

  deadLetter(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    const reasons = new Map(entries.map((entry) => [entry.receipt, entry.reason]));
    return this.#settle(
      entries.map((entry) => entry.receipt),
      (job, token) => job.moveToFailed(new UnrecoverableError(reasons.get(token)!), token, false),
      true,
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new QueueError('CLOSED', `${this.name} driver is closed`));
    this.#markers.close();
    await Promise.allSettled([...this.#workers.values()].map((worker) => worker.close(true)));
    await this.#queue.close().catch(() => {});
    this.#held.clear();
    if (this.#ownsConnection) await this.#connection.quit().catch(() => this.#connection.disconnect());
  }

  /** Up to `count` jobs in one burst: each take is one script, pipelined on the shared connection. */
  async #take(worker: Worker, count: number): Promise<DriverMessage[]> {
    const tokens = Array.from({ length: count }, () => `${this.#instance}-${++this.#seq}`);
    const jobs = await Promise.all(tokens.map((token) => worker.getNextJob(token, { block: false })));
    const messages: DriverMessage[] = [];
    jobs.forEach((job, index) => {
      if (!job) return;
      const token = tokens[index]!;
      this.#held.set(token, job);
      messages.push(toMessage(job, token, decodeJobData(job.data as JobData)));
    });
    return messages;
  }

  /**
   * Settles each entry on its own, all in one burst. `releases`: the entry gives its lock up, so
   * the driver forgets the job whatever the answer but a transient one.
   */
  async #settle(
    receipts: readonly string[],
    run: (job: Job, token: string) => Promise<unknown>,
    releases: boolean,
  ): Promise<SettleOutcome[]> {
    this.#assertOpen();
    return Promise.all(
      receipts.map(async (token): Promise<SettleOutcome> => {
        const job = this.#held.get(token);
        if (!job) return { ok: false, error: lockLost(undefined) };
        try {
          await run(job, token);
          if (releases) this.#held.delete(token);
          return { ok: true };
        } catch (raw) {
          const error = this.#error(raw);
          if (!error.retryable) this.#held.delete(token);
          return { ok: false, error };
        }
      }),
    );
  }

  #worker(lockMs: number): Worker {
    const existing = this.#workers.get(lockMs);
    if (existing) return existing;
    const worker = new Worker(this.#queue.name, null, {
      connection: this.#connection,
      prefix: this.#options.prefix,
      autorun: false,
      lockDuration: lockMs,
      skipLockRenewal: true,
      maxStalledCount: UNBOUNDED_STALLS,
      stalledInterval: this.#options.stalledIntervalMs,
      removeOnComplete: { age: this.#options.keepCompletedSeconds },
      removeOnFail: { age: this.#options.keepFailedSeconds },
    });
    worker.on('error', () => {});
    // One checker per driver is enough: BullMQ spaces the checks of every worker on the queue.
    if (this.#workers.size === 0) void worker.startStalledCheckTimer().catch(() => {});
    this.#workers.set(lockMs, worker);
    return worker;
  }

  /** NOT_FOUND once the queue was deleted (its existence key is gone). */
  async #assertExists(force: boolean): Promise<void> {
    if (!force && Date.now() < this.#existsUntil) return;
    const exists = await this.#connection.exists(existenceKey(this.#options.prefix, this.#queue.name));
    if (exists !== 1) throw new QueueError('NOT_FOUND', `${this.name}: the queue does not exist (deleted?)`);
    this.#existsUntil = Date.now() + EXISTS_TRUST_MS;
  }

  #assertOpen(): void {
    if (this.#closed) throw new QueueError('CLOSED', `${this.name} driver is closed`);
  }

  #error(raw: unknown): QueueError {
    if (raw instanceof QueueError) return raw;
    return classifyBullmqError(raw) ?? new QueueError('INTERNAL', `${this.name}: ${messageOf(raw)}`);
  }
}

function toMessage(
  job: Job,
  token: string,
  data: { body: string; attributes: Record<string, string> },
): DriverMessage {
  return {
    receipt: token,
    messageId: job.id!,
    body: data.body,
    attributes: data.attributes,
    // Every move to active counts, a stall's redelivery included.
    receiveCount: job.attemptsStarted,
  };
}

function messageOf(raw: unknown): string {
  return raw instanceof Error ? raw.message : String(raw);
}

function lockLost(jobId: string | undefined): QueueError {
  return new QueueError(
    'LEASE_LOST',
    `bullmq: this driver no longer holds the lock${jobId ? ` on job ${jobId}` : ''}`,
  );
}
