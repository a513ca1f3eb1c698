import { createHash } from 'node:crypto';
import type * as port from '@queueport/core/driver';
import {
  AbandonedTakes,
  deriveProviderKey,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  QueueError,
} from '@queueport/core/driver';
import type { Pool } from 'pg';
import { classifyPostgresError } from './classify-error';
import { queueStatements } from './queue-statements';
import { checkedCount, checkedId, leasedMessage, parseReceipt, receiptOf, storableText } from './rows';
import type { WakeListener } from './wake-listener';

/** Most entries per call: one statement each, well inside PostgreSQL's parameter and packet limits. */
export const POSTGRES_BATCH = 100;
const SWEEP_INTERVAL_MS = 30_000;
/** Dedupe keys as stored: printable ASCII of bounded length, whatever the event id holds. */
const KEY_RULES = { maxLength: 200, allowed: /[\x21-\x7e]/ };

export interface PostgresDriverOptions {
  /** Ended by `close()`. */
  pool: Pool;
  /** The `application_name` of the pool's and the listener's connections, so they can be found. */
  applicationName: string;
  /** Wakes waiting receives on NOTIFY, and at each poll. */
  listener: WakeListener;
  schema: string;
  queueName: string;
  /** From the queue's row: its receive limit (null for none) and dedupe window. */
  settings: { maxReceives: number | null; dedupeWindowSeconds: number };
  /** Each statement's bound (statement_timeout and query_timeout). */
  timeoutMs: number;
  pollIntervalMs: number;
}

/** A queue's NOTIFY channel: a hash, since a queue name may be longer than an identifier. */
export const channelOf = (schema: string, queueName: string) =>
  `qp_${createHash('sha256').update(`${schema}\u0000${queueName}`).digest('hex').slice(0, 40)}`;

const lost = new QueueError(
  'LEASE_LOST',
  'the lease was lost (it ran out and another took it, or it was settled)',
);
const LEASE_LOST: port.SettleOutcome = { ok: false, error: lost };

/**
 * A queue in PostgreSQL tables. A receive leases rows with FOR UPDATE SKIP LOCKED and a fresh
 * token in one statement, so concurrent receivers never take the same row; every settle names
 * the token, so a stale receipt matches no row and the database itself refuses it.
 */
export class PostgresDriver implements port.Driver {
  readonly name: string;
  readonly capabilities: port.Capabilities;
  readonly callTimeoutMs: number;
  readonly classifyError = classifyPostgresError;
  readonly applicationName: string;
  readonly #o: PostgresDriverOptions;
  readonly #sql: ReturnType<typeof queueStatements>;
  readonly #channel: string;
  #nextSweep = 0;
  readonly #abandoned = new AbandonedTakes();
  #sweeping: Promise<unknown> = Promise.resolve();

  constructor(options: PostgresDriverOptions) {
    this.#o = options;
    this.applicationName = options.applicationName;
    this.name = `pgqueue:${options.queueName}`;
    this.#sql = queueStatements(`"${options.schema}"`);
    this.#channel = channelOf(options.schema, options.queueName);
    // The wait for a pooled connection, then the statement: each bounded by timeoutMs.
    this.callTimeoutMs = 2 * options.timeoutMs;
    const { maxReceives, dedupeWindowSeconds } = options.settings;
    const most = POSTGRES_BATCH;
    this.capabilities = {
      maxBodyBytes: MAX_BODY_BYTES,
      delay: { maxSeconds: MAX_DELAY_SECONDS, nativeMaxSeconds: MAX_DELAY_SECONDS, fractional: false },
      dedupe: { kind: 'window', windowSeconds: dedupeWindowSeconds, reportsDuplicates: true },
      // Not kept: SKIP LOCKED lets two receivers take one group's rows at once (see the README).
      ordering: 'none',
      leaseExtension: true,
      leaseSeconds: { min: 1, max: 43_200 },
      longPollMaxSeconds: 20,
      receiveCount: true,
      // Rows stay until settled: at least the portable 14 days.
      retentionSeconds: 14 * 86_400,
      batch: { publish: most, receive: most, settle: most, publishBytes: 2 ** 21 },
      staleReceipt: 'rejected',
      deadLetter: { move: true, redriveAfterReceives: maxReceives },
    };
  }

  async publish(messages: readonly port.OutgoingMessage[]): Promise<port.PublishOutcome[]> {
    // ON CONFLICT takes a key once per statement: a repeat within the call is its first's duplicate.
    const keys = messages.map((message) => deriveProviderKey(message.dedupeKey, KEY_RULES));
    const firstIndex = new Map<string, number>();
    keys.forEach((key, i) => {
      if (!firstIndex.has(key)) firstIndex.set(key, i);
    });
    const firsts = messages.filter((_, i) => firstIndex.get(keys[i]!) === i);
    const { rows } = await this.#o.pool.query(this.#sql.publish, [
      ...[this.#o.queueName, this.#channel, this.#o.settings.dedupeWindowSeconds, [...firstIndex.keys()]],
      ...[firsts.map((m) => storableText(m.eventId)), firsts.map((m) => m.body)],
      firsts.map((m) => JSON.stringify(m.attributes)),
      firsts.map((m) => (m.groupId === undefined ? null : storableText(m.groupId))),
      firsts.map((m) => m.delaySeconds),
    ]);
    const byKey = new Map<string, { id: string; duplicate: boolean }>();
    for (const row of rows) {
      // No holder in this statement's snapshot: a concurrent publish of the key committed after
      // it began. The Queue's retry (of UNAVAILABLE) sees the holder.
      if (row.fresh_id === null && row.held_id === null) {
        throw new QueueError('UNAVAILABLE', `${this.name}: a concurrent publish claimed a key; try again`);
      }
      byKey.set(String(row.dedupe_key), {
        id: checkedId(row.fresh_id ?? row.held_id),
        duplicate: !row.fresh_id,
      });
    }
    this.#sweepNowAndThen();
    return keys.map((key, i) => {
      const held = byKey.get(key);
      if (!held) throw new QueueError('INTERNAL', `${this.name}: the database answered a publish short`);
      return { ok: true, messageId: held.id, duplicate: held.duplicate || firstIndex.get(key) !== i };
    });
  }

  async receive(request: port.ReceiveRequest): Promise<port.DriverMessage[]> {
    const deadline = performance.now() + request.waitSeconds * 1000;
    for (;;) {
      if (request.signal?.aborted) return [];
      // Listening before the look, so a publish right after it still wakes this wait; a wait
      // left behind (rows came, or the look failed) ends by its own timer, at most a poll later.
      const left = deadline - performance.now();
      const wait =
        left > 0 ? this.#o.listener.next(Math.min(left, this.#o.pollIntervalMs), request.signal) : undefined;
      // The abort rule: answer now, not when the statement ends; what it took goes back.
      const taken = await this.#abandoned.unlessAborted(this.#take(request), request.signal, (rows) =>
        this.#giveBack(rows),
      );
      if (taken === undefined) return [];
      if (taken.length > 0 || !wait || performance.now() >= deadline) {
        if (taken.length === 0) await this.#assertQueueExists();
        return taken;
      }
      await wait;
    }
  }

  ack(receipts: readonly string[]): Promise<port.SettleOutcome[]> {
    return this.#settle(
      receipts.map((receipt) => ({ receipt })),
      this.#sql.ack,
    );
  }

  release(entries: readonly port.ReleaseEntry[]): Promise<port.SettleOutcome[]> {
    return this.#settle(entries, this.#sql.release, (e) => e.delaySeconds, [this.#channel]);
  }

  extendLease(entries: readonly port.ExtendEntry[]): Promise<port.SettleOutcome[]> {
    return this.#settle(entries, this.#sql.extend, (e) => e.leaseSeconds);
  }

  deadLetter(entries: readonly port.DeadLetterEntry[]): Promise<port.SettleOutcome[]> {
    return this.#settle(entries, this.#sql.deadLetter, (e) => storableText(e.reason));
  }

  async close(): Promise<void> {
    await Promise.all([this.#sweeping, this.#abandoned.drained()]);
    await this.#o.listener.close();
    await this.#o.pool.end();
  }

  async #take({ maxMessages, leaseSeconds }: port.ReceiveRequest): Promise<port.DriverMessage[]> {
    const { queueName, settings, pool } = this.#o;
    const { rows } = await pool.query(this.#sql.receive, [
      queueName,
      maxMessages,
      leaseSeconds,
      settings.maxReceives,
    ]);
    // RETURNING has no order; ids grow with publishing, so this is oldest first.
    return rows.map(leasedMessage).sort((a, b) => (BigInt(a.messageId) < BigInt(b.messageId) ? -1 : 1));
  }

  /** Returns the leases of an abandoned receive, visible at once with that receive not counted. */
  #giveBack(taken: readonly port.DriverMessage[]): Promise<unknown> {
    const receipts = taken.map((message) => parseReceipt(message.receipt)!);
    return this.#o.pool.query(this.#sql.giveBack, [
      this.#o.queueName,
      receipts.map((r) => r.id),
      receipts.map((r) => r.token),
      this.#channel,
    ]);
  }

  /** An empty answer checks the queue is there: a deleted queue is NOT_FOUND, never an idle one. */
  async #assertQueueExists(): Promise<void> {
    const { rowCount } = await this.#o.pool.query(this.#sql.queueExists, [this.#o.queueName]);
    if (checkedCount(rowCount, 'row count') === 0) {
      throw new QueueError('NOT_FOUND', `${this.name}: the queue does not exist (deleted, or never created)`);
    }
  }

  /** Expired dedupe keys go a bounded slice at a time, off the publish's path; a failure waits for the next. */
  #sweepNowAndThen(): void {
    if (performance.now() < this.#nextSweep) return;
    this.#nextSweep = performance.now() + SWEEP_INTERVAL_MS;
    this.#sweeping = this.#o.pool.query(this.#sql.sweepDedupe).catch(() => undefined);
  }

  /** One statement per batch (see queueStatements); a malformed receipt, or one repeated, is LEASE_LOST. */
  async #settle<E extends { receipt: string }>(
    entries: readonly E[],
    statement: string,
    column?: (entry: E) => unknown,
    tail: unknown[] = [],
  ): Promise<port.SettleOutcome[]> {
    const seen = new Set<string>();
    const sent = entries.filter(
      (e) => parseReceipt(e.receipt) && !seen.has(e.receipt) && seen.add(e.receipt),
    );
    const sentSet = new Set(sent);
    const done = new Set<string>();
    if (sent.length > 0) {
      const receipts = sent.map((entry) => parseReceipt(entry.receipt)!);
      const columns = [
        receipts.map((r) => r.id),
        receipts.map((r) => r.token),
        ...(column ? [sent.map(column)] : []),
      ];
      const { rows } = await this.#o.pool.query(statement, [this.#o.queueName, ...columns, ...tail]);
      for (const row of rows) done.add(receiptOf(checkedId(row.id), String(row.token)));
    }
    return entries.map((entry) =>
      sentSet.has(entry) && done.has(entry.receipt) ? { ok: true } : LEASE_LOST,
    );
  }
}
