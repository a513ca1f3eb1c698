import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  ABORTED,
  AbandonedTakes,
  type Capabilities,
  type DeadLetterEntry,
  type Driver,
  type DriverMessage,
  type ExtendEntry,
  normalizeError,
  type OutgoingMessage,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
  untilAborted,
} from '@queueport/core/driver';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  type BullmqDriverOptions,
  bullmqCapabilities,
  type ResolvedOptions,
  resolveOptions,
  stalledIntervalFor,
} from './bullmq-options';
import { classifyBullmqError } from './classify-error';
import { closeConnection } from './close-connection';
import { diagnoseForeignJob, findLockedBy, quarantineJob } from './foreign-job';
import { checkReceiveCount, decodeJobData, encodeJobData } from './job-data';
import { jobIdFor } from './job-id';
import { type HeldJob, LeaseLane } from './lease-lane';
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
 * - Throughput: an ack completes its job and fetches the next in the same script, as BullMQ's
 *   own Worker does, so a busy consumer makes one Redis round trip per job (see LeaseLane). A
 *   receive with nothing fetched ahead takes up to `batch.receive` jobs in one burst of
 *   pipelined commands.
 */
export class BullmqDriver implements Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly classifyError = classifyBullmqError;
  /** The connection's command timeout (a URL's `timeoutMs`), where it has one. */
  readonly callTimeoutMs?: number;
  readonly #options: ResolvedOptions;
  readonly #connection: Redis;
  readonly #ownsConnection: boolean;
  readonly #queue: Queue;
  /** `<prefix>:<queue>`, which every key of the queue starts with. */
  readonly #queueKey: string;
  /** The connection's password, masked in every error this driver writes. */
  readonly #secrets: string[];
  /** One lane (a manual-processing Worker and its fetched-ahead jobs) per lease length. */
  readonly #lanes = new Map<number, LeaseLane>();
  /** The jobs this driver holds a lock on, by receipt. */
  readonly #held = new Map<string, HeldJob>();
  /** The lane worker that runs the stall check (the shortest lease's), and how often. */
  #stalledChecker: { worker: Worker; intervalMs: number } | undefined;
  #stalledTimer: NodeJS.Timeout | undefined;
  readonly #closing = closingController();
  readonly #abandoned = new AbandonedTakes();
  readonly #markers: MarkerWait;
  readonly #instance = randomUUID().slice(0, 8);
  #seq = 0;
  #existsUntil = 0;
  #opened: Promise<void> | undefined;

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
    if (options.connection?.options?.maxRetriesPerRequest !== null) {
      // BullMQ's workers refuse such a connection; say so now, not on every receive.
      throw new QueueError(
        'INVALID_ARGUMENT',
        'the ioredis connection needs maxRetriesPerRequest: null (BullMQ workers wait through a Redis restart)',
        { details: { field: 'connection' } },
      );
    }
    this.#connection = options.connection;
    this.#ownsConnection = options.ownsConnection === true;
    this.name = options.name ?? `bullmq:${options.queueName}`;
    this.capabilities = bullmqCapabilities(this.#options);
    this.#queue = new Queue(options.queueName, {
      connection: this.#connection,
      prefix: this.#options.prefix,
    });
    this.#queue.on('error', () => {});
    this.#queueKey = `${this.#options.prefix}:${options.queueName}`;
    const password = this.#connection.options?.password;
    this.#secrets = typeof password === 'string' && password !== '' ? [password] : [];
    const commandTimeout = this.#connection.options?.commandTimeout;
    if (typeof commandTimeout === 'number' && commandTimeout > 0) this.callTimeoutMs = commandTimeout;
    this.#markers = new MarkerWait(this.#connection, this.#queue.keys.marker!);
  }

  /**
   * Marks the queue as existing, so that deleting it later is noticed (NOT_FOUND instead of jobs
   * written into a deleted queue). The adapter does this when it opens a URL; a driver made
   * directly does it on its first call.
   */
  ensureExists(): Promise<void> {
    this.#opened ??= this.#connection
      .set(existenceKey(this.#options.prefix, this.#queue.name), String(Date.now()), 'NX')
      .then(
        () => undefined,
        (error: unknown) => {
          // A refusal (credentials, say) is not remembered: the next call asks Redis again.
          this.#opened = undefined;
          throw error;
        },
      );
    return this.#opened;
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    await this.#assertExists(false);
    const ttl = this.#options.dedupeWindowSeconds * 1000;
    const requested = messages.map((message) => {
      const dedupeId = jobIdFor(message.dedupeKey);
      // A job id of its own per publish: BullMQ answers a deduplicated add with the holder's id,
      // which is then not the one asked for. That is the duplicate signal, in the add's own answer.
      return { dedupeId, jobId: `${dedupeId}~${this.#instance}${(++this.#seq).toString(36)}` };
    });
    const jobs = await this.#queue.addBulk(
      messages.map((message, index) => ({
        name: message.eventId,
        data: encodeJobData(message),
        opts: {
          jobId: requested[index]!.jobId,
          delay: Math.round(message.delaySeconds * 1000),
          attempts: 1,
          deduplication: { id: requested[index]!.dedupeId, ttl },
        },
      })),
    );
    return jobs.map((job, index) => ({
      ok: true,
      messageId: job.id!,
      duplicate: job.id !== requested[index]!.jobId,
    }));
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    const lane = this.#lane(Math.round(request.leaseSeconds * 1000));
    const deadline = Date.now() + request.waitSeconds * 1000;
    const signals = request.signal ? [request.signal, this.#closing.signal] : [this.#closing.signal];
    // Made only when the receive has to wait: most receives of a busy consumer never do.
    let signal: AbortSignal | undefined;
    if (!signals.some((s) => s.aborted)) {
      const fresh = lane.takeFresh(request.maxMessages);
      if (fresh.length > 0) {
        const delivered = await this.#deliver(fresh);
        if (delivered.length > 0) return delivered;
      }
    }
    for (;;) {
      if (signals.some((s) => s.aborted)) return [];
      // Jobs an abandoned take still locks wait in the lane for the next receive (or go back at close).
      const taken = await this.#abandoned.unlessAborted(
        this.#take(lane, request.maxMessages),
        signals,
        (held) => lane.putBack(held),
      );
      if (taken === undefined) return [];
      if (taken.length > 0) {
        const delivered = await this.#deliver(taken);
        if (delivered.length > 0) return delivered;
        continue;
      }
      if ((await untilAborted(this.#assertExists(true), signals)) === ABORTED) return [];
      const left = deadline - Date.now();
      if (left <= 0) return [];
      signal ??= signals.length > 1 ? AbortSignal.any(signals) : signals[0]!;
      await this.#markers.wait(left, signal);
    }
  }

  ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(receipts, true, async ({ job, token, lane }) => {
      // Completing fetches the lane's next job in the same script, as BullMQ's Worker does.
      const fetchNext = !this.#isClosing && lane.wantsMore();
      let next: unknown;
      try {
        next = await job.moveToCompleted(null, token, fetchNext);
      } catch (error) {
        if (!fetchNext) throw error;
        // A job fetched with the completion that BullMQ failed to read: the completion went
        // through, and the fetched job is locked with this token, waiting to be dead-lettered.
        lane.keepHeld(await this.#recover(lane, token, error, job.id));
        return;
      }
      if (fetchNext && !this.#isClosing) this.#askParentField(lane.keep(next, token));
    });
  }

  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(
      entries.map((entry) => entry.receipt),
      true,
      ({ job, token }, index) =>
        job.moveToDelayed(Date.now() + Math.round(entries[index]!.delaySeconds * 1000), token),
    );
  }

  extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(
      entries.map((entry) => entry.receipt),
      false,
      async ({ job, token }, index) => {
        const extended = await job.extendLock(token, Math.round(entries[index]!.leaseSeconds * 1000));
        if (extended !== 1) throw lockLost(job.id);
      },
    );
  }

  deadLetter(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(
      entries.map((entry) => entry.receipt),
      true,
      ({ job, token, broken }, index) =>
        this.#moveToDeadLetters(
          { job, token, broken },
          broken ? `bullmq: ${broken}` : entries[index]!.reason,
        ),
    );
  }

  /**
   * BullMQ's move to the failed set, or the driver's own where BullMQ's script cannot move the
   * job (it reads fields a foreign job has wrong): a job meant for the dead letters gets there.
   */
  async #moveToDeadLetters({ job, token, broken }: Omit<HeldJob, 'lane'>, reason: string): Promise<void> {
    if (!broken && !(await this.#followsForeignKeys(job.id!))) {
      try {
        await job.moveToFailed(new UnrecoverableError(reason), token, false);
        return;
      } catch (error) {
        // Lock and connection failures are what they say; anything else is the job's fields.
        if (isLockOrConnectionFailure(error)) throw error;
      }
    }
    const moved = await quarantineJob(this.#connection, this.#queueKey, job.id!, token, reason);
    if (!moved) throw lockLost(job.id);
  }

  /**
   * Whether BullMQ's finishing script would follow the job's parent or scheduler fields (which
   * queueport never writes) into keys it does not own, and fail half-way on foreign values.
   * One round trip, paid only by the rare move to the dead letters.
   */
  async #followsForeignKeys(jobId: string): Promise<boolean> {
    try {
      const fields = await this.#connection.hmget(`${this.#queueKey}:${jobId}`, 'parentKey', 'parent', 'rjk');
      return fields.some((field) => field !== null);
    } catch {
      return true;
    }
  }

  /**
   * Ends what runs on the driver's own: the lanes' fetch-ahead, the stalled checker, long polls
   * and Redis commands still out (a call the Queue stopped waiting for). The Queue makes no call
   * after this, so nothing here refuses one.
   */
  async close(): Promise<void> {
    if (this.#isClosing) return;
    this.#closing.abort(new QueueError('CLOSED', `${this.name} driver is closed`));
    clearTimeout(this.#stalledTimer);
    this.#markers.close();
    // A take abandoned by the abort puts its jobs in the lane; they go back with the rest below.
    await this.#abandoned.drained();
    const lanes = [...this.#lanes.values()];
    // Jobs fetched ahead go back to the front of the line rather than stall until their lock ends.
    await Promise.allSettled(lanes.map((lane) => lane.returnAll()));
    await Promise.allSettled(lanes.map((lane) => lane.worker.close(true)));
    await this.#queue.close().catch(() => {});
    this.#held.clear();
    if (this.#ownsConnection) await closeConnection(this.#connection);
  }

  /**
   * Up to `count` jobs: those the lane's acks fetched ahead, else one burst of takes, each one
   * script, pipelined on the shared connection.
   */
  async #take(lane: LeaseLane, count: number): Promise<HeldJob[]> {
    const ahead = await lane.take(count);
    if (ahead.length > 0) return ahead;
    const tokens = Array.from({ length: count }, () => `${this.#instance}-${++this.#seq}`);
    const refusalsBefore = lane.schedulerRefusals;
    let taken = await Promise.allSettled(
      tokens.map((token) =>
        lane.worker.getNextJob(token, { block: false }).then(
          (job): HeldJob | undefined => this.#askParentField(job ? { job, token, lane } : undefined),
          (error: unknown) => this.#recover(lane, token, error),
        ),
      ),
    );
    if (lane.schedulerRefusals !== refusalsBefore) {
      // BullMQ answers "no job" for a job whose scheduler fields it could not follow, though it
      // moved and locked the job: look for it under the tokens that came back empty.
      taken = await Promise.allSettled(
        taken.map((result, index) =>
          result.status === 'fulfilled' && result.value === undefined
            ? this.#recover(lane, tokens[index]!, SCHEDULER_REFUSAL).catch(() => undefined)
            : result.status === 'fulfilled'
              ? Promise.resolve(result.value)
              : Promise.reject(result.reason),
        ),
      );
    }
    const held = taken.flatMap((result) =>
      result.status === 'fulfilled' && result.value ? [result.value] : [],
    );
    // Jobs taken beside a failed take are handed out; the failure shows on the next receive.
    const failed = taken.find((result) => result.status === 'rejected');
    if (held.length === 0 && failed) throw failed.reason;
    return held;
  }

  /**
   * The job a take (or an ack's fetch) locked with `token` before BullMQ failed to read it, held
   * as one that cannot be delivered; else the failure itself. Lock and connection failures took
   * nothing, so they are not looked into.
   */
  async #recover(lane: LeaseLane, token: string, error: unknown, except?: string): Promise<HeldJob> {
    if (classifyBullmqError(error) !== undefined) throw error;
    const jobId = await findLockedBy(this.#connection, this.#queueKey, token, except);
    if (jobId === undefined) throw error;
    const { reason, receiveCount } = await diagnoseForeignJob(this.#connection, this.#queueKey, jobId);
    const job = lane.placeholder(jobId, token);
    job.attemptsStarted = receiveCount;
    return { job, token, lane, broken: reason };
  }

  /**
   * Hands out what a receive took, but for jobs received more often than the queue's
   * `redriveAfterReceives`: those go to the dead letters, as SQS's redrive policy moves them.
   */
  async #deliver(received: readonly HeldJob[]): Promise<DriverMessage[]> {
    const taken = await this.#checkParentFields(received);
    const limit = this.#options.redriveAfterReceives;
    const over =
      limit === undefined ? [] : taken.filter((held) => !held.broken && held.job.attemptsStarted > limit);
    if (over.length === 0) return taken.map((held) => this.#hold(held));
    // A move that fails leaves the job locked until its lease ends; it is looked at again then.
    await Promise.allSettled(
      over.map((held) =>
        this.#moveToDeadLetters(
          held,
          `bullmq: received ${held.job.attemptsStarted - 1} times, the queue's redriveAfterReceives (${limit})`,
        ),
      ),
    );
    return taken.filter((held) => !over.includes(held)).map((held) => this.#hold(held));
  }

  /**
   * Starts asking Redis whether the job's hash has a `parent` field, without waiting: the
   * answer travels behind the take, so a receive seldom waits for it.
   */
  #askParentField(held: HeldJob | undefined): HeldJob | undefined {
    if (held && !held.broken && !held.parentField) {
      held.parentField = this.#connection
        .hexists(`${this.#queueKey}:${held.job.id}`, 'parent')
        .then((exists) => exists === 1);
      // Read by #checkParentFields, which decides what a failure means; never an unhandled rejection.
      held.parentField.catch(() => {});
    }
    return held;
  }

  /**
   * The jobs, those whose raw hash has a `parent` field marked as flow jobs: BullMQ's parsed view
   * hides an empty one, its finishing script does not. A connection that fails the answer fails
   * the receive, the jobs kept in their lane for the next one; a key that fails it (another
   * type by now) marks its job as unreadable.
   */
  async #checkParentFields(taken: readonly HeldJob[]): Promise<HeldJob[]> {
    const answers = await Promise.allSettled(
      taken.map((held) => this.#askParentField(held)?.parentField ?? Promise.resolve(false)),
    );
    const down = answers.find(
      (answer): answer is PromiseRejectedResult =>
        answer.status === 'rejected' && isLockOrConnectionFailure(answer.reason),
    );
    if (down) {
      for (const [index, held] of taken.entries()) {
        if (answers[index]!.status === 'rejected') held.parentField = undefined;
        held.lane.putBack([held]);
      }
      throw down.reason;
    }
    for (const [index, held] of taken.entries()) {
      const answer = answers[index]!;
      if (answer.status === 'rejected') held.broken ??= 'its hash could not be read';
      else if (answer.value) held.broken ??= FOREIGN_FLOW;
    }
    return [...taken];
  }

  /**
   * The receipt names the job and the token: an ack's fetched job keeps the acked one's token
   * (BullMQ locks it with the same one), so the token alone is not unique per delivery.
   */
  #hold(held: HeldJob): DriverMessage {
    const receipt = `${held.token}/${held.job.id}`;
    this.#held.set(receipt, held);
    // Every move to active counts, a stall's redelivery included.
    const count = checkReceiveCount(held.job.attemptsStarted);
    // queueport never writes these: BullMQ's scripts would follow them into keys it does not own.
    if (held.job.parentKey || held.job.parent !== undefined || held.job.repeatJobKey) {
      held.broken ??= FOREIGN_FLOW;
    }
    const decoded = held.broken || typeof count === 'string' ? undefined : decodeJobData(held.job.data);
    if (decoded?.ok && typeof count === 'number') {
      return {
        receipt,
        messageId: held.job.id!,
        body: decoded.body,
        attributes: decoded.attributes,
        receiveCount: count,
      };
    }
    held.broken ??=
      typeof count === 'string' ? count : decoded && !decoded.ok ? decoded.reason : 'unreadable';
    // No envelope: the Queue refuses it as invalid and dead-letters it, with held.broken as the reason.
    return {
      receipt,
      messageId: held.job.id!,
      body: '',
      attributes: {},
      receiveCount: typeof count === 'number' ? count : 1,
    };
  }

  /**
   * Settles each entry on its own, all in one burst. `releases`: the entry gives its lock up, so
   * the driver forgets the job whatever the answer but a transient one.
   */
  async #settle(
    receipts: readonly string[],
    releases: boolean,
    run: (held: HeldJob, index: number) => Promise<unknown>,
  ): Promise<SettleOutcome[]> {
    return Promise.all(
      receipts.map(async (receipt, index): Promise<SettleOutcome> => {
        const held = this.#held.get(receipt);
        if (!held) return { ok: false, error: lockLost(undefined) };
        try {
          await run(held, index);
          if (releases) this.#held.delete(receipt);
          return { ok: true };
        } catch (raw) {
          const error = normalizeError(raw, this.name, classifyBullmqError, { secrets: this.#secrets });
          if (!error.retryable) this.#held.delete(receipt);
          return { ok: false, error };
        }
      }),
    );
  }

  #lane(lockMs: number): LeaseLane {
    const existing = this.#lanes.get(lockMs);
    if (existing) return existing;
    const stalledInterval = stalledIntervalFor(this.#options, lockMs);
    const worker = new Worker(this.#queue.name, null, {
      connection: this.#connection,
      prefix: this.#options.prefix,
      autorun: false,
      lockDuration: lockMs,
      skipLockRenewal: true,
      maxStalledCount: UNBOUNDED_STALLS,
      stalledInterval,
      removeOnComplete: { age: this.#options.keepCompletedSeconds },
      removeOnFail: { age: this.#options.keepFailedSeconds },
    });
    const lane = new LeaseLane(worker, lockMs, this.capabilities.batch.receive);
    worker.on('error', (error: unknown) => {
      if (error instanceof Error && error.message.startsWith('Failed to add repeatable job'))
        lane.schedulerRefusals++;
    });
    this.#checkStalledEvery(worker, stalledInterval);
    this.#lanes.set(lockMs, lane);
    return lane;
  }

  /**
   * One checker per driver is enough (BullMQ spaces the checks of every worker on the queue), at
   * the pace the shortest lease needs: a shorter lease than any before speeds the checker up.
   */
  #checkStalledEvery(worker: Worker, intervalMs: number): void {
    const current = this.#stalledChecker;
    if (current && current.intervalMs <= intervalMs) return;
    this.#stalledChecker = { worker, intervalMs };
    if (!current) {
      void this.#checkStalled();
    } else if (this.#stalledTimer) {
      clearTimeout(this.#stalledTimer);
      this.#stalledTimer = undefined;
      this.#scheduleStalledCheck();
    }
  }

  /**
   * BullMQ's stall check, run by the driver's own loop instead of the Worker's: only while the
   * queue exists, since the check writes the queue's meta key back, and a deleted queue must
   * stay deleted down to its last key.
   */
  async #checkStalled(): Promise<void> {
    this.#stalledTimer = undefined;
    const checker = this.#stalledChecker;
    if (this.#isClosing || !checker) return;
    try {
      const exists = await this.#connection.exists(existenceKey(this.#options.prefix, this.#queue.name));
      if (exists === 1 && !this.#isClosing) await checker.worker.getBackend().moveStalledJobsToWait();
    } catch {
      // The next check tries again; a receive reports what is wrong with Redis.
    }
    this.#scheduleStalledCheck();
  }

  #scheduleStalledCheck(): void {
    if (this.#isClosing || this.#stalledTimer || !this.#stalledChecker) return;
    this.#stalledTimer = setTimeout(() => void this.#checkStalled(), this.#stalledChecker.intervalMs);
    // Never what keeps a process alive: a consumer's receive loop does that.
    this.#stalledTimer.unref();
  }

  /** Set by close(): the fetch-ahead and the stalled checker stop. */
  get #isClosing(): boolean {
    return this.#closing.signal.aborted;
  }

  /** NOT_FOUND once the queue was deleted (its existence key is gone). */
  async #assertExists(force: boolean): Promise<void> {
    await this.ensureExists();
    if (!force && Date.now() < this.#existsUntil) return;
    const exists = await this.#connection.exists(existenceKey(this.#options.prefix, this.#queue.name));
    if (exists !== 1) throw new QueueError('NOT_FOUND', `${this.name}: the queue does not exist (deleted?)`);
    this.#existsUntil = Date.now() + EXISTS_TRUST_MS;
  }
}

const FOREIGN_FLOW = 'it belongs to a BullMQ flow or job scheduler, which queueport does not run';
/** What #recover is told when BullMQ swallowed its own failure (a job scheduler it could not update). */
const SCHEDULER_REFUSAL = new Error('BullMQ could not follow the job scheduler fields of a job it took');

/** Every receive in flight listens on it once, so a busy driver passes Node's default of 10. */
function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** A lock or connection failure (BullMQ's codes, ioredis's words, a socket code), not the job's fields. */
function isLockOrConnectionFailure(error: unknown): boolean {
  return classifyBullmqError(error) !== undefined || (error as { code?: unknown })?.code !== undefined;
}

function lockLost(jobId: string | undefined): QueueError {
  return new QueueError(
    'LEASE_LOST',
    `bullmq: this driver no longer holds the lock${jobId ? ` on job ${jobId}` : ''}`,
  );
}
