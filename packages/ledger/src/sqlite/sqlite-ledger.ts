import { type Clock, Coalescer, normalizeError, QueueError, systemClock } from '@queueport/core/driver';
import type Database from 'better-sqlite3';
import type { AttemptLog, ListAttemptsRequest } from '../attempts/attempt-log';
import type { AttemptRecord } from '../attempts/attempt-record';
import { type AttemptRow, attemptFromRow, attemptParams } from '../attempts/attempt-row';
import { ATTEMPTS_TABLE, type AttemptStatementKey, attemptStatements } from '../attempts/attempt-statements';
import { checkListAttempts, checkPruneAttempts } from '../attempts/attempt-validation';
import { decideClaim } from '../claim-decision';
import type { DestinationStateStore } from '../destinations/destination-state';
import { SqliteDestinationStore } from '../destinations/sqlite-destination-store';
import { leaseLost, ledgerClosed } from '../errors';
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
import { migrateSqlite } from '../migrations/sqlite';
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

export interface SqliteLedgerOptions {
  /** The database file (created when missing). Every process sharing the ledger opens the same file. */
  filename: string;
  clock?: Clock;
  /** How long a statement waits for another connection's write lock before UNAVAILABLE. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * WAL `synchronous` level. 'normal' (default) survives a crash of the application; 'full'
   * also survives power loss, at one fsync per commit.
   */
  synchronous?: 'normal' | 'full';
  /**
   * Group commit (default on): concurrent claim / complete / fail / release calls made within one
   * turn go out as one transaction, up to `maxEntries` (default 64). Each call still resolves only
   * after the commit holding its row. `false` commits each call on its own.
   */
  groupCommit?: GroupCommitOptions;
}

type Statement = { compiled: CompiledSql; prepared: Database.Statement };
type StatementKey = LedgerStatementKey | AttemptStatementKey;

/** A per-event call waiting for its group's transaction. */
type GroupedWrite = { op: 'claim'; request: ClaimRequest } | { op: 'settle'; entry: SettleEntry };

/**
 * The ledger in one SQLite file through better-sqlite3, in WAL mode. Every method is
 * synchronous underneath, so no transaction can ever span an await: claim runs in one
 * BEGIN IMMEDIATE transaction (the write lock up front, so two connections never both decide on
 * the same row), settling is one conditional UPDATE.
 */
export class SqliteLedger implements Ledger, AttemptLog {
  readonly #db: Database.Database;
  readonly #clock: Clock;
  readonly #statements: Record<StatementKey, Statement>;
  readonly #claimExisting: Database.Transaction<(request: ClaimRequest, now: number) => ClaimResult>;
  readonly #claimBatch: Database.Transaction<
    (requests: readonly ClaimRequest[], now: number) => BatchOutcome<ClaimResult>[]
  >;
  readonly #settleBatch: Database.Transaction<
    (entries: readonly SettleEntry[], now: number) => BatchOutcome<LedgerRecord>[]
  >;
  readonly #writeBatch: Database.Transaction<
    (writes: readonly GroupedWrite[], now: number) => BatchOutcome<ClaimResult | LedgerRecord>[]
  >;
  /** A single settle that records its attempt: the two statements commit together or not at all. */
  readonly #settleWithAttempt: Database.Transaction<
    (kind: SettleKind, request: SettleRequest | ReleaseRequest, now: number) => LedgerRow | undefined
  >;
  readonly #pruneBatch: Database.Transaction<(cutoff: number) => number>;
  /** The per-event calls, grouped: one transaction for the claims and settles of a turn. */
  readonly #writes: Coalescer<GroupedWrite, ClaimResult | LedgerRecord> | undefined;
  /** Destination state and parked events, on this ledger's connection. */
  readonly destinations: DestinationStateStore;
  #closed = false;

  private constructor(db: Database.Database, clock: Clock, groupCommit: GroupCommitOptions | undefined) {
    this.#db = db;
    this.#clock = clock;
    this.destinations = new SqliteDestinationStore({ db, clock, isClosed: () => this.#closed, toQueueError });
    const sql = {
      ...ledgerStatements(LEDGER_TABLE),
      ...attemptStatements(ATTEMPTS_TABLE, LEDGER_TABLE, 'rowid'),
    };
    this.#statements = Object.fromEntries(
      Object.entries(sql).map(([key, text]) => {
        const compiled = compileNamed(text, 'sqlite');
        return [key, { compiled, prepared: db.prepare(compiled.text) }];
      }),
    ) as Record<StatementKey, Statement>;
    this.#claimExisting = db.transaction((request: ClaimRequest, now: number) => {
      const current = this.#get(request.eventId);
      const decision = decideClaim(current, request, now);
      const params = recordToParams(decision.result.record);
      if (decision.write === 'insert') this.#run('insertNew', params);
      else if (decision.write === 'update') this.#run('write', params);
      return decision.result;
    });
    this.#claimBatch = db.transaction((requests: readonly ClaimRequest[], now: number) =>
      requests.map((request) => this.#claimInBatch(request, now)),
    );
    this.#settleBatch = db.transaction((entries: readonly SettleEntry[], now: number) =>
      entries.map((entry) => this.#settleInBatch(entry, now)),
    );
    this.#writeBatch = db.transaction((writes: readonly GroupedWrite[], now: number) =>
      writes.map((write) =>
        write.op === 'claim' ? this.#claimInBatch(write.request, now) : this.#settleInBatch(write.entry, now),
      ),
    );
    this.#settleWithAttempt = db.transaction(
      (kind: SettleKind, request: SettleRequest | ReleaseRequest, now: number) =>
        this.#settleRow(kind, request, now),
    );
    // Terminal rows and their attempts in one transaction: a crash between the two leaves no orphans.
    this.#pruneBatch = db.transaction((cutoff: number) => {
      const { compiled, prepared } = this.#statements.pruneEventsReturning;
      const gone = prepared.pluck().all(...bindValues(compiled, { cutoff, batch: PRUNE_BATCH })) as string[];
      for (const eventId of gone) this.#run('deleteEventAttempts', { event_id: eventId });
      return gone.length;
    });
    // One connection, synchronous statements: a second batch in flight would only wait for the first.
    const settings = groupCommitSettings(groupCommit, {
      maxEntries: DEFAULT_GROUP_MAX_ENTRIES,
      maxInFlight: 1,
    });
    // Claims and settles of one turn share one transaction: a commit (its WAL page writes) is
    // most of what a grouped write costs, and each turn of a delivery
    // pipeline brings both.
    this.#writes =
      settings &&
      new Coalescer(
        async (batch: GroupedWrite[]) =>
          this.#writeChecked(batch, alreadyChecked, (good, now) => this.#writeBatch.immediate(good, now)),
        settings,
      );
  }

  /** One claim inside a batch's transaction; a rule's refusal is this entry's alone. */
  #claimInBatch(request: ClaimRequest, now: number): BatchOutcome<ClaimResult> {
    try {
      const fresh = decideClaim(undefined, request, now);
      if (this.#run('insertNew', recordToParams(fresh.result.record)) === 1) return succeeded(fresh.result);
      // Already inside the batch's transaction: the nested call is a savepoint, not a commit.
      return succeeded(this.#claimExisting(request, now));
    } catch (error) {
      // A rule's refusal (IDEMPOTENCY_CONFLICT) wrote nothing; a database error rolls the whole
      // batch back, and every entry gets it.
      if (isLedgerRefusal(error)) return failed<ClaimResult>(error);
      throw error;
    }
  }

  #settleInBatch(entry: SettleEntry, now: number): BatchOutcome<LedgerRecord> {
    const row = this.#settleRow(entry.kind, entry, now);
    return row ? succeeded(recordFromRow(row)) : failed<LedgerRecord>(leaseLost(entry.eventId));
  }

  /**
   * The settle, and its attempt under the claim number the settled row holds; the caller provides
   * the transaction. No row settled (the lease is lost) means no attempt.
   */
  #settleRow(kind: SettleKind, request: SettleRequest | ReleaseRequest, now: number): LedgerRow | undefined {
    const row = this.#row('settle', settlementParams(kind, request, now));
    if (row && request.attempt) {
      this.#run('insertAttempt', {
        event_id: row.event_id,
        attempt: Number(row.attempts),
        ...attemptParams(kind, request.attempt, request.ambiguous === true),
      });
    }
    return row;
  }

  static async open(options: SqliteLedgerOptions): Promise<SqliteLedger> {
    if (typeof options.filename !== 'string' || options.filename.length === 0) {
      throw new QueueError('INVALID_ARGUMENT', 'ledger: filename must be a non-empty string');
    }
    const clock = options.clock ?? systemClock;
    let db: Database.Database | undefined;
    try {
      // Loaded on first use: an application on PostgreSQL never loads the native module.
      const { default: SqliteDatabase } = await import('better-sqlite3');
      db = new SqliteDatabase(options.filename);
      // busy_timeout first: switching to WAL and migrating both wait on other openers' locks.
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Checked before the file is touched further: a bad option is the caller's, not the database's.
      groupCommitSettings(options.groupCommit, { maxEntries: 1, maxInFlight: 1 });
      migrateSqlite(db, clock.now());
      return new SqliteLedger(db, clock, options.groupCommit);
    } catch (error) {
      db?.close();
      throw toQueueError(error);
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    checkClaim(request);
    if (this.#writes) {
      if (this.#closed) throw ledgerClosed();
      return this.#writes.submit({ op: 'claim', request }) as Promise<ClaimResult>;
    }
    return this.#guard(() => {
      const now = this.#clock.now();
      // The common case, an id never seen, is one autocommit statement.
      const fresh = decideClaim(undefined, request, now);
      if (this.#run('insertNew', recordToParams(fresh.result.record)) === 1) return fresh.result;
      return this.#claimExisting.immediate(request, now);
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
    return this.#guard(() => this.#get(eventId));
  }

  async scanPending(request: ScanRequest): Promise<LedgerRecord[]> {
    checkScan(request);
    return this.#guard(() => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      const params = { cutoff, limit: request.limit, after: request.after ?? null };
      return this.#all(request.after === undefined ? 'scanPending' : 'scanPendingAfter', params);
    });
  }

  async scanAmbiguous(request: { limit: number; after?: string }): Promise<LedgerRecord[]> {
    checkAmbiguousScan(request);
    return this.#guard(() => {
      const params = { limit: request.limit, after: request.after ?? null };
      return this.#all(request.after === undefined ? 'scanAmbiguous' : 'scanAmbiguousAfter', params);
    });
  }

  async list(request: ListRequest): Promise<LedgerRecord[]> {
    checkList(request);
    return this.#guard(() => {
      const params = { limit: request.limit, after: request.after ?? null, state: request.state ?? null };
      return this.#all(listStatementKey(request), params);
    });
  }

  async prune(request: { olderThanSeconds: number }): Promise<number> {
    checkPrune(request);
    return this.#guard(() => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      let total = 0;
      for (;;) {
        const deleted = this.#pruneBatch.immediate(cutoff);
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async listAttempts(request: ListAttemptsRequest): Promise<AttemptRecord[]> {
    checkListAttempts(request);
    return this.#guard(() => {
      const { compiled, prepared } = this.#statements.listAttempts;
      const params = {
        event_id: request.eventId,
        from_attempt: request.fromAttempt ?? 1,
        limit: request.limit,
      };
      return (prepared.all(...bindValues(compiled, params)) as AttemptRow[]).map(attemptFromRow);
    });
  }

  async pruneAttempts(request: { olderThanSeconds: number }): Promise<number> {
    checkPruneAttempts(request);
    return this.#guard(() => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      let total = 0;
      for (;;) {
        const deleted = this.#run('pruneAttemptsBatch', { cutoff, batch: PRUNE_BATCH });
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Calls already accepted are written before the file closes: their callers are waiting on them.
    await this.#writes?.drained();
    this.#db.close();
  }

  /** Good entries in one transaction; bad ones answered without touching the database. */
  async #writeClaims(
    requests: readonly ClaimRequest[],
    problemOf: (request: ClaimRequest) => QueueError | undefined = claimProblem,
  ): Promise<BatchOutcome<ClaimResult>[]> {
    return this.#writeChecked(requests, problemOf, (good, now) => this.#claimBatch.immediate(good, now));
  }

  async #writeSettles(
    entries: readonly SettleEntry[],
    problemOf: (entry: SettleEntry) => QueueError | undefined = settleProblem,
  ): Promise<BatchOutcome<LedgerRecord>[]> {
    return this.#writeChecked(entries, problemOf, (good, now) => this.#settleBatch.immediate(good, now));
  }

  #writeChecked<E, T>(
    entries: readonly E[],
    problemOf: (entry: E) => QueueError | undefined,
    write: (good: E[], now: number) => BatchOutcome<T>[],
  ): BatchOutcome<T>[] {
    const outcomes: (BatchOutcome<T> | undefined)[] = entries.map((entry) => {
      const problem = problemOf(entry);
      return problem && failed<T>(problem);
    });
    const good = entries.filter((_, index) => outcomes[index] === undefined);
    if (good.length === 0) return outcomes as BatchOutcome<T>[];
    let written: BatchOutcome<T>[];
    try {
      written = write(good, this.#clock.now());
    } catch (error) {
      const shared = failed<T>(toQueueError(error));
      written = good.map(() => shared);
    }
    let next = 0;
    return outcomes.map((outcome) => outcome ?? written[next++]!);
  }

  #settle(kind: SettleKind, request: SettleRequest | ReleaseRequest): Promise<LedgerRecord> | LedgerRecord {
    checkSettle(request);
    if (this.#writes) {
      if (this.#closed) throw ledgerClosed();
      return this.#writes.submit({
        op: 'settle',
        entry: { kind, ...request } as SettleEntry,
      }) as Promise<LedgerRecord>;
    }
    return this.#guard(() => {
      const now = this.#clock.now();
      // Without an attempt the settle stays one autocommit statement, as cheap as before.
      const row = request.attempt
        ? this.#settleWithAttempt.immediate(kind, request, now)
        : this.#row('settle', settlementParams(kind, request, now));
      if (!row) throw leaseLost(request.eventId);
      return recordFromRow(row);
    });
  }

  #get(eventId: string): LedgerRecord | undefined {
    const row = this.#row('get', { event_id: eventId });
    return row && recordFromRow(row);
  }

  #row(key: StatementKey, params: Readonly<Record<string, SqlValue>>): LedgerRow | undefined {
    const { compiled, prepared } = this.#statements[key];
    return prepared.get(...sqliteValues(bindValues(compiled, params))) as LedgerRow | undefined;
  }

  #all(key: StatementKey, params: Readonly<Record<string, SqlValue>>): LedgerRecord[] {
    const { compiled, prepared } = this.#statements[key];
    return (prepared.all(...sqliteValues(bindValues(compiled, params))) as LedgerRow[]).map(recordFromRow);
  }

  #run(key: StatementKey, params: Readonly<Record<string, SqlValue>>): number {
    const { compiled, prepared } = this.#statements[key];
    return prepared.run(...sqliteValues(bindValues(compiled, params))).changes;
  }

  #guard<T>(operation: () => T): T {
    if (this.#closed) throw ledgerClosed();
    try {
      return operation();
    } catch (error) {
      throw toQueueError(error);
    }
  }
}

/** The ledger's own refusals of one entry (a changed digest), as opposed to a failing database. */
function isLedgerRefusal(error: unknown): error is QueueError {
  return error instanceof QueueError && error.code === 'IDEMPOTENCY_CONFLICT';
}

/** better-sqlite3 binds numbers, strings and null, not booleans. */
function sqliteValues(values: SqlValue[]): (string | number | null)[] {
  return values.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

/** A lock held too long by another connection is worth retrying; anything else is not. */
function toQueueError(error: unknown): QueueError {
  return normalizeError(error, 'ledger (sqlite)', (cause) => {
    const code = (cause as { code?: unknown })?.code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
      return new QueueError('UNAVAILABLE', `ledger (sqlite): the database is locked (${code})`, { cause });
    }
    return undefined;
  });
}
