import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Clock, Coalescer, normalizeError, QueueError, systemClock } from '@queueport/core/driver';
import type { Pool, PoolClient } from 'pg';
import type { AttemptLog, ListAttemptsRequest } from '../attempts/attempt-log';
import type { AttemptRecord } from '../attempts/attempt-record';
import { type AttemptRow, attemptFromRow, attemptParams } from '../attempts/attempt-row';
import { ATTEMPTS_TABLE, attemptStatements } from '../attempts/attempt-statements';
import { checkListAttempts, checkPruneAttempts } from '../attempts/attempt-validation';
import {
  batchSettleWithAttemptsCall,
  pruneWithAttempts,
  settleWithAttempt,
} from '../attempts/postgres-attempt-statements';
import { decideClaim } from '../claim-decision';
import type { DestinationStateStore } from '../destinations/destination-state';
import { PostgresDestinationStore } from '../destinations/postgres-destination-store';
import { invalidArgument, leaseLost, ledgerClosed } from '../errors';
import {
  alreadyChecked,
  checkBatch,
  claimProblem,
  failed,
  settleProblem,
  succeeded,
} from '../group-commit/batch-entries';
import {
  DEFAULT_GROUP_MAX_ENTRIES,
  type GroupCommitOptions,
  type GroupCommitSettings,
  groupCommitSettings,
} from '../group-commit/group-commit';
import type {
  BatchOutcome,
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerRecord,
  ListRequest,
  ReleaseRequest,
  ScanRequest,
  SettleEntry,
  SettleRequest,
} from '../ledger';
import { migratePostgres, SETTLE_BATCH_FUNCTION } from '../migrations/postgres';
import { type LedgerRow, recordFromRow, recordToParams, type SqlValue } from '../record';
import { type SettleKind, settlementParams } from '../settlement';
import { bindValues, type CompiledSql, compileNamed } from '../sql';
import {
  LEDGER_TABLE,
  type LedgerStatementKey,
  ledgerStatements,
  listStatementKey,
  PRUNE_BATCH,
} from '../statements';
import {
  checkAmbiguousScan,
  checkClaim,
  checkEventId,
  checkList,
  checkPrune,
  checkScan,
  checkSettle,
  secondsToMs,
} from '../validation';
import { batchClaimInsert, batchSettleCall } from './batch-statements';

export interface PostgresLedgerOptions {
  /** Used to create a pool the ledger owns (and ends on close). Without it and `pool`, pg reads PG* variables. */
  connectionString?: string;
  /** A pool the application owns: the ledger uses it and leaves it open on close. */
  pool?: Pool;
  /** Where the tables live (created when missing). Default "public". */
  schema?: string;
  clock?: Clock;
  /**
   * How long `open` keeps trying while the server cannot take the connection or the migrations
   * yet (starting up or shutting down, connection refused or lost, too many clients): it retries
   * with a growing pause, then throws UNAVAILABLE. Default 10 000 ms; 0 tries once.
   */
  openTimeoutMs?: number;
  /**
   * Group commit (default on): concurrent claim / complete / fail / release calls go out as one
   * multi-row statement (one commit), up to `maxEntries` (64) a statement and `maxInFlight` (4)
   * statements at once; calls arriving while those are on the wire form the next. Each call
   * resolves only after the commit holding its row. `false` sends each call on its own.
   */
  groupCommit?: GroupCommitOptions;
}

type Queryable = Pick<PoolClient, 'query'>;
type Statement = CompiledSql & { name: string };
type StatementKey = LedgerStatementKey | keyof ReturnType<typeof attemptSql>;

/** The attempt log's statements, beside the ledger's, prepared the same way. */
function attemptSql(events: string, attempts: string) {
  return {
    ...attemptStatements(attempts, events, 'ctid'),
    settleWithAttempt: settleWithAttempt(events, attempts),
    pruneWithAttempts: pruneWithAttempts(events, attempts),
  };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const DEFAULT_OPEN_TIMEOUT_MS = 10_000;
/** The pause after the first failed open attempt, doubled after each, up to the last value. */
const OPEN_RETRY_FIRST_MS = 100;
const OPEN_RETRY_MAX_MS = 2_000;
/** A claim whose row vanished between the insert and the lock (pruned) starts over, this often at most. */
const CLAIM_ROUNDS = 3;
/** Statements of one kind on the wire at once; what arrives meanwhile forms the next batch. */
const DEFAULT_IN_FLIGHT = 4;

/**
 * The ledger in PostgreSQL through a pg Pool. Times come from the injected clock, stored as
 * BIGINT epoch ms. The claim of an id never seen is one INSERT … ON CONFLICT DO NOTHING; the
 * claim of an existing id is one short transaction that locks the row (SELECT … FOR UPDATE),
 * decides with `decideClaim`, and writes. Settling is one conditional UPDATE. No transaction
 * awaits anything but the database.
 */
export class PostgresLedger implements Ledger, AttemptLog {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  readonly #statements: Record<StatementKey, Statement>;
  readonly #lockRow: CompiledSql & { name: string };
  readonly #batchInsert: { name: string; text: string };
  readonly #batchSettle: { name: string; text: string };
  readonly #batchSettleAttempts: { name: string; text: string };
  readonly #claims: Coalescer<ClaimRequest, ClaimResult> | undefined;
  readonly #settles: Coalescer<SettleEntry, LedgerRecord> | undefined;
  /** Destination state and parked events, in this ledger's schema, through its pool. */
  readonly destinations: DestinationStateStore;
  #closed = false;

  private constructor(
    pool: Pool,
    ownsPool: boolean,
    clock: Clock,
    table: string,
    schema: string,
    groupCommit: GroupCommitSettings | undefined,
  ) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#clock = clock;
    this.destinations = new PostgresDestinationStore({
      pool,
      schema,
      clock,
      isClosed: () => this.#closed,
      toQueueError,
      withClient,
    });
    // Prepared statement names are per connection; the schema's hash keeps two ledgers sharing a
    // pool from colliding.
    const prefix = `qpl_${createHash('sha256').update(schema).digest('hex').slice(0, 12)}_`;
    const sql = ledgerStatements(table);
    const all = { ...sql, ...attemptSql(table, `"${schema}".${ATTEMPTS_TABLE}`) };
    this.#statements = Object.fromEntries(
      Object.entries(all).map(([key, text]) => [
        key,
        { ...compileNamed(text, 'postgres'), name: prefix + key },
      ]),
    ) as Record<StatementKey, Statement>;
    this.#lockRow = { ...compileNamed(`${sql.get} FOR UPDATE`, 'postgres'), name: `${prefix}lockRow` };
    this.#batchInsert = { name: `${prefix}batchInsert`, text: batchClaimInsert(table) };
    this.#batchSettle = {
      name: `${prefix}batchSettle`,
      text: batchSettleCall(`"${schema}"`, SETTLE_BATCH_FUNCTION),
    };
    this.#batchSettleAttempts = {
      name: `${prefix}batchSettleAttempts`,
      text: batchSettleWithAttemptsCall(`"${schema}"`, SETTLE_BATCH_FUNCTION),
    };
    this.#claims =
      groupCommit && new Coalescer((batch) => this.#writeClaims(batch, alreadyChecked), groupCommit);
    this.#settles =
      groupCommit && new Coalescer((batch) => this.#writeSettles(batch, alreadyChecked), groupCommit);
  }

  static async open(options: PostgresLedgerOptions = {}): Promise<PostgresLedger> {
    if (options.pool && options.connectionString !== undefined) {
      throw invalidArgument('pass either pool or connectionString, not both');
    }
    const schema = options.schema ?? 'public';
    if (!IDENTIFIER.test(schema)) {
      throw invalidArgument('schema must be a plain identifier (letters, digits, underscore; at most 63)');
    }
    const openTimeoutMs = options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
    if (!Number.isSafeInteger(openTimeoutMs) || openTimeoutMs < 0) {
      throw invalidArgument('openTimeoutMs must be a whole number of milliseconds, 0 or more', {
        field: 'openTimeoutMs',
      });
    }
    const groupCommit = groupCommitSettings(options.groupCommit, {
      maxEntries: DEFAULT_GROUP_MAX_ENTRIES,
      maxInFlight: DEFAULT_IN_FLIGHT,
    });
    const quoted = `"${schema}"`;
    const clock = options.clock ?? systemClock;
    const ownsPool = !options.pool;
    // Loaded on first use: an application on SQLite never loads pg.
    const pool =
      options.pool ?? new (await import('pg')).default.Pool({ connectionString: options.connectionString });
    // An idle client of our own pool dying (server restart) must not crash the process: the next
    // query fails and is reported as UNAVAILABLE instead.
    if (ownsPool) pool.on('error', () => undefined);
    try {
      await retryWhileUnavailable(openTimeoutMs, () =>
        withClient(pool, (client) => migratePostgres(client, schema, quoted, clock.now())),
      );
      return new PostgresLedger(pool, ownsPool, clock, `${quoted}.${LEDGER_TABLE}`, schema, groupCommit);
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw toQueueError(error);
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    checkClaim(request);
    if (this.#claims) {
      if (this.#closed) throw ledgerClosed();
      return this.#claims.submit(request);
    }
    return this.#guard(async () => {
      const now = this.#clock.now();
      for (let round = 0; round < CLAIM_ROUNDS; round++) {
        // The common case, an id never seen, is this one statement.
        const fresh = decideClaim(undefined, request, now);
        const inserted = await this.#query(this.#pool, 'insertNew', recordToParams(fresh.result.record));
        if (inserted.rowCount === 1) return fresh.result;
        const result = await this.#claimExisting(request, now);
        if (result) return result;
      }
      throw new QueueError(
        'UNAVAILABLE',
        'ledger (postgres): the row kept changing under the claim; try again',
        {
          details: { event_id: request.eventId },
        },
      );
    });
  }

  async complete(request: SettleRequest): Promise<LedgerRecord> {
    return this.#settle('complete', request);
  }

  async fail(request: SettleRequest): Promise<LedgerRecord> {
    return this.#settle('fail', request);
  }

  async release(request: ReleaseRequest): Promise<LedgerRecord> {
    return this.#settle('release', request);
  }

  async claimMany(requests: readonly ClaimRequest[]): Promise<BatchOutcome<ClaimResult>[]> {
    checkBatch(requests, 'claimMany');
    if (this.#closed) throw ledgerClosed();
    return this.#writeClaims(requests);
  }

  async settleMany(entries: readonly SettleEntry[]): Promise<BatchOutcome<LedgerRecord>[]> {
    checkBatch(entries, 'settleMany');
    if (this.#closed) throw ledgerClosed();
    return this.#writeSettles(entries);
  }

  async get(eventId: string): Promise<LedgerRecord | undefined> {
    checkEventId(eventId);
    return this.#guard(async () => {
      const [row] = await this.#rows(this.#pool, 'get', { event_id: eventId });
      return row && recordFromRow(row);
    });
  }

  async scanPending(request: ScanRequest): Promise<LedgerRecord[]> {
    checkScan(request);
    return this.#guard(async () => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      const params = { cutoff, limit: request.limit, after: request.after ?? null };
      const key = request.after === undefined ? 'scanPending' : 'scanPendingAfter';
      return (await this.#rows(this.#pool, key, params)).map(recordFromRow);
    });
  }

  async scanAmbiguous(request: { limit: number; after?: string }): Promise<LedgerRecord[]> {
    checkAmbiguousScan(request);
    return this.#guard(async () => {
      const params = { limit: request.limit, after: request.after ?? null };
      const key = request.after === undefined ? 'scanAmbiguous' : 'scanAmbiguousAfter';
      return (await this.#rows(this.#pool, key, params)).map(recordFromRow);
    });
  }

  async list(request: ListRequest): Promise<LedgerRecord[]> {
    checkList(request);
    return this.#guard(async () => {
      const params = { limit: request.limit, after: request.after ?? null, state: request.state ?? null };
      return (await this.#rows(this.#pool, listStatementKey(request), params)).map(recordFromRow);
    });
  }

  async prune(request: { olderThanSeconds: number }): Promise<number> {
    checkPrune(request);
    return this.#guard(async () => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      let total = 0;
      for (;;) {
        // The rows and their attempts in one statement: nothing is left orphaned in between.
        const answer = await this.#query(this.#pool, 'pruneWithAttempts', { cutoff, batch: PRUNE_BATCH });
        const deleted = Number((answer.rows[0] as unknown as { deleted: number } | undefined)?.deleted ?? 0);
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async listAttempts(request: ListAttemptsRequest): Promise<AttemptRecord[]> {
    checkListAttempts(request);
    return this.#guard(async () => {
      const params = {
        event_id: request.eventId,
        from_attempt: request.fromAttempt ?? 1,
        limit: request.limit,
      };
      const rows = (await this.#rows(this.#pool, 'listAttempts', params)) as unknown as AttemptRow[];
      return rows.map(attemptFromRow);
    });
  }

  async pruneAttempts(request: { olderThanSeconds: number }): Promise<number> {
    checkPruneAttempts(request);
    return this.#guard(async () => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      let total = 0;
      for (;;) {
        const deleted =
          (await this.#query(this.#pool, 'pruneAttemptsBatch', { cutoff, batch: PRUNE_BATCH })).rowCount ?? 0;
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Calls already accepted are written before the pool ends: their callers are waiting on them.
    await Promise.all([this.#claims?.drained(), this.#settles?.drained()]);
    if (this.#ownsPool) await this.#pool.end();
  }

  /**
   * The ids never seen in one INSERT … SELECT FROM unnest (one statement, one commit); the rest
   * (existing rows, an id repeated in the batch) through the locked path, in request order, each
   * its own outcome.
   */
  async #writeClaims(
    requests: readonly ClaimRequest[],
    problemOf: (request: ClaimRequest) => QueueError | undefined = claimProblem,
  ): Promise<BatchOutcome<ClaimResult>[]> {
    const outcomes: (BatchOutcome<ClaimResult> | undefined)[] = requests.map((request) => {
      const problem = problemOf(request);
      return problem && failed<ClaimResult>(problem);
    });
    const now = this.#clock.now();
    const fresh = new Map<string, ClaimResult>();
    for (const [index, request] of requests.entries()) {
      if (outcomes[index] || fresh.has(request.eventId)) continue;
      fresh.set(request.eventId, decideClaim(undefined, request, now).result);
    }
    let inserted: Set<string>;
    try {
      const rows = fresh.size === 0 ? [] : await this.#insertFresh([...fresh.values()], now);
      inserted = new Set(rows);
    } catch (error) {
      const shared = failed<ClaimResult>(toQueueError(error));
      return outcomes.map((outcome) => outcome ?? shared);
    }
    for (const [index, request] of requests.entries()) {
      if (outcomes[index]) continue;
      if (inserted.delete(request.eventId)) {
        outcomes[index] = succeeded(fresh.get(request.eventId)!);
        continue;
      }
      try {
        outcomes[index] = succeeded(await this.#claimExistingRounds(request, now));
      } catch (error) {
        outcomes[index] = failed(toQueueError(error));
      }
    }
    return outcomes as BatchOutcome<ClaimResult>[];
  }

  async #insertFresh(results: readonly ClaimResult[], now: number): Promise<string[]> {
    const records = results.map((result) => result.record);
    const answer = await this.#pool.query<{ event_id: string }>({
      ...this.#batchInsert,
      values: [
        records.map((record) => record.eventId),
        records.map((record) => record.payloadSha256),
        records.map((record) => record.leaseOwner),
        records.map((record) => record.leaseUntil),
        now,
      ],
    });
    return answer.rows.map((row) => row.event_id);
  }

  async #claimExistingRounds(request: ClaimRequest, now: number): Promise<ClaimResult> {
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const result = await this.#claimExisting(request, now);
      if (result) return result;
    }
    throw new QueueError(
      'UNAVAILABLE',
      'ledger (postgres): the row kept changing under the claim; try again',
      {
        details: { event_id: request.eventId },
      },
    );
  }

  /**
   * One UPDATE … FROM unnest per round; an id repeated in the batch goes to the next round, since
   * one UPDATE changes a row once whatever the number of matching source rows.
   */
  async #writeSettles(
    entries: readonly SettleEntry[],
    problemOf: (entry: SettleEntry) => QueueError | undefined = settleProblem,
  ): Promise<BatchOutcome<LedgerRecord>[]> {
    const outcomes: (BatchOutcome<LedgerRecord> | undefined)[] = entries.map((entry) => {
      const problem = problemOf(entry);
      return problem && failed<LedgerRecord>(problem);
    });
    const now = this.#clock.now();
    let pending = entries.map((entry, index) => ({ entry, index })).filter(({ index }) => !outcomes[index]);
    while (pending.length > 0) {
      const seen = new Set<string>();
      const round = pending.filter(({ entry }) => !seen.has(entry.eventId) && seen.add(entry.eventId));
      pending = pending.filter((item) => !round.includes(item));
      let rows: LedgerRow[];
      try {
        rows = await this.#updateSettled(
          round.map(({ entry }) => entry),
          now,
        );
      } catch (error) {
        const shared = failed<LedgerRecord>(toQueueError(error));
        for (const { index } of [...round, ...pending]) outcomes[index] = shared;
        break;
      }
      const settled = new Map(rows.map((row) => [row.event_id, row]));
      for (const { entry, index } of round) {
        const row = settled.get(entry.eventId);
        outcomes[index] = row ? succeeded(recordFromRow(row)) : failed(leaseLost(entry.eventId));
      }
    }
    return outcomes as BatchOutcome<LedgerRecord>[];
  }

  async #updateSettled(entries: readonly SettleEntry[], now: number): Promise<LedgerRow[]> {
    const params = entries.map((entry) => settlementParams(entry.kind, entry, now));
    const column = (name: string) => params.map((param) => param[name] ?? null);
    const settle = [
      column('event_id'),
      column('owner'),
      column('state'),
      column('last_outcome'),
      column('delivered_at'),
      column('retry_at'),
      column('ambiguous'),
      now,
    ];
    // A batch without attempts calls migration 2's function, exactly as before the attempt log.
    if (!entries.some((entry) => entry.attempt)) {
      return (await this.#pool.query<LedgerRow>({ ...this.#batchSettle, values: settle })).rows;
    }
    const attempts = entries.map((entry) =>
      entry.attempt ? attemptParams(entry.kind, entry.attempt, entry.ambiguous === true) : undefined,
    );
    // NULL in `outcome` is an entry without an attempt.
    const attempt = (name: keyof NonNullable<(typeof attempts)[number]>) =>
      attempts.map((each) => each?.[name] ?? null);
    const answer = await this.#pool.query<LedgerRow>({
      ...this.#batchSettleAttempts,
      values: [
        ...settle,
        attempt('started_at'),
        attempt('duration_ms'),
        attempt('outcome'),
        attempt('status_code'),
        attempt('error_class'),
        attempt('response_sample'),
        attempt('response_truncated'),
        attempt('destination_id'),
      ],
    });
    return answer.rows;
  }

  /**
   * One short transaction on one connection: lock the row, decide, write. Returns undefined when
   * the row disappeared and a concurrent claim re-created it first (start over).
   */
  async #claimExisting(request: ClaimRequest, now: number): Promise<ClaimResult | undefined> {
    return withClient(this.#pool, async (client, breakClient) => {
      await client.query('BEGIN');
      try {
        const locked = await client.query<LedgerRow>({
          name: this.#lockRow.name,
          text: this.#lockRow.text,
          values: bindValues(this.#lockRow, { event_id: request.eventId }),
        });
        const current = locked.rows[0] && recordFromRow(locked.rows[0]);
        const decision = decideClaim(current, request, now);
        const params = recordToParams(decision.result.record);
        if (decision.write === 'insert' && (await this.#query(client, 'insertNew', params)).rowCount === 0) {
          await client.query('ROLLBACK');
          return undefined;
        }
        if (decision.write === 'update') await this.#query(client, 'write', params);
        await client.query('COMMIT');
        return decision.result;
      } catch (error) {
        await client.query('ROLLBACK').catch(breakClient);
        throw error;
      }
    });
  }

  async #settle(kind: SettleKind, request: SettleRequest | ReleaseRequest): Promise<LedgerRecord> {
    checkSettle(request);
    if (this.#settles) {
      if (this.#closed) throw ledgerClosed();
      return this.#settles.submit({ kind, ...request } as SettleEntry);
    }
    return this.#guard(async () => {
      const params = settlementParams(kind, request, this.#clock.now());
      // With an attempt, still one statement: the insert rides on the settle's RETURNING.
      const [row] = request.attempt
        ? await this.#rows(this.#pool, 'settleWithAttempt', {
            ...params,
            ...attemptParams(kind, request.attempt, request.ambiguous === true),
          })
        : await this.#rows(this.#pool, 'settle', params);
      if (!row) throw leaseLost(request.eventId);
      return recordFromRow(row);
    });
  }

  async #rows(db: Queryable, key: StatementKey, params: Readonly<Record<string, SqlValue>>) {
    return (await this.#query(db, key, params)).rows;
  }

  #query(db: Queryable, key: StatementKey, params: Readonly<Record<string, SqlValue>>) {
    const statement = this.#statements[key];
    return db.query<LedgerRow>({
      name: statement.name,
      text: statement.text,
      values: bindValues(statement, params),
    });
  }

  async #guard<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) throw ledgerClosed();
    try {
      return await operation();
    } catch (error) {
      throw toQueueError(error);
    }
  }
}

/**
 * Runs `work` on a client checked out of `pool`. While checked out, a client has none of the
 * pool's listeners (those cover idle clients), and a connection lost mid-transaction emits
 * 'error' on it: unheard, that event ends the process. So a listener is there for the whole
 * checkout, and a client that reported an error, or whose rollback failed (`breakClient`), goes
 * back as broken: the pool discards it instead of handing it out again.
 */
async function withClient<T>(
  pool: Pool,
  work: (client: PoolClient, breakClient: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const breakClient = (error: unknown) => {
    broken ??= error instanceof Error ? error : new Error(String(error));
  };
  client.on('error', breakClient);
  try {
    return await work(client, breakClient);
  } finally {
    client.off('error', breakClient);
    client.release(broken);
  }
}

/**
 * Tries `attempt` again while it fails with an error worth retrying (a server starting up or
 * shutting down, a refused or lost connection), pausing 100 ms, then twice as long each time up
 * to 2 s, until `timeoutMs` of real time has passed; then the last failure, as UNAVAILABLE.
 */
async function retryWhileUnavailable<T>(timeoutMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let pauseMs = OPEN_RETRY_FIRST_MS; ; pauseMs = Math.min(pauseMs * 2, OPEN_RETRY_MAX_MS)) {
    try {
      return await attempt();
    } catch (error) {
      const normalized = toQueueError(error);
      if (!normalized.retryable) throw error;
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        if (timeoutMs === 0) throw error;
        throw new QueueError(
          'UNAVAILABLE',
          `${normalized.message} (still failing after ${timeoutMs} ms of retries)`,
          {
            cause: error,
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, remaining)));
    }
  }
}

/** SQLSTATE classes that mean "try again": connection loss, serialization, resources, shutdown. */
const RETRYABLE_SQLSTATE = /^(08|40|53|57P|55P03)/;
const RETRYABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

function toQueueError(error: unknown): QueueError {
  return normalizeError(error, 'ledger (postgres)', (cause) => {
    const code = (cause as { code?: unknown })?.code;
    const message = cause instanceof Error ? cause.message : '';
    if ((typeof code === 'string' && RETRYABLE_SQLSTATE.test(code)) || RETRYABLE_MESSAGE.test(message)) {
      return new QueueError(
        'UNAVAILABLE',
        `ledger (postgres): ${typeof code === 'string' ? `SQLSTATE ${code}: ` : ''}${message}`,
        {
          cause,
        },
      );
    }
    return undefined;
  });
}
