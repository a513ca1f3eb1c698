import { type Clock, normalizeError, QueueError, systemClock } from '@queueport/core/driver';
import type Database from 'better-sqlite3';
import { decideClaim } from '../claim-decision';
import { leaseLost, ledgerClosed } from '../errors';
import type {
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerRecord,
  ListRequest,
  ReleaseRequest,
  ScanRequest,
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
}

type Statement = { compiled: CompiledSql; prepared: Database.Statement };

/**
 * The ledger in one SQLite file through better-sqlite3, in WAL mode. Every method is
 * synchronous underneath, so no transaction can ever span an await: claim runs in one
 * BEGIN IMMEDIATE transaction (the write lock up front, so two connections never both decide on
 * the same row), settling is one conditional UPDATE.
 */
export class SqliteLedger implements Ledger {
  readonly #db: Database.Database;
  readonly #clock: Clock;
  readonly #statements: Record<LedgerStatementKey, Statement>;
  readonly #claimExisting: Database.Transaction<(request: ClaimRequest, now: number) => ClaimResult>;
  #closed = false;

  private constructor(db: Database.Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    const sql = ledgerStatements(LEDGER_TABLE);
    this.#statements = Object.fromEntries(
      Object.entries(sql).map(([key, text]) => {
        const compiled = compileNamed(text, 'sqlite');
        return [key, { compiled, prepared: db.prepare(compiled.text) }];
      }),
    ) as Record<LedgerStatementKey, Statement>;
    this.#claimExisting = db.transaction((request: ClaimRequest, now: number) => {
      const current = this.#get(request.eventId);
      const decision = decideClaim(current, request, now);
      const params = recordToParams(decision.result.record);
      if (decision.write === 'insert') this.#run('insertNew', params);
      else if (decision.write === 'update') this.#run('write', params);
      return decision.result;
    });
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
      migrateSqlite(db, clock.now());
      return new SqliteLedger(db, clock);
    } catch (error) {
      db?.close();
      throw toQueueError(error);
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    checkClaim(request);
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
        const deleted = this.#run('pruneBatch', { cutoff, batch: PRUNE_BATCH });
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #settle(kind: SettleKind, request: SettleRequest | ReleaseRequest): LedgerRecord {
    checkSettle(request);
    return this.#guard(() => {
      const row = this.#row('settle', settlementParams(kind, request, this.#clock.now()));
      if (!row) throw leaseLost(request.eventId);
      return recordFromRow(row);
    });
  }

  #get(eventId: string): LedgerRecord | undefined {
    const row = this.#row('get', { event_id: eventId });
    return row && recordFromRow(row);
  }

  #row(key: LedgerStatementKey, params: Readonly<Record<string, SqlValue>>): LedgerRow | undefined {
    const { compiled, prepared } = this.#statements[key];
    return prepared.get(...sqliteValues(bindValues(compiled, params))) as LedgerRow | undefined;
  }

  #all(key: LedgerStatementKey, params: Readonly<Record<string, SqlValue>>): LedgerRecord[] {
    const { compiled, prepared } = this.#statements[key];
    return (prepared.all(...sqliteValues(bindValues(compiled, params))) as LedgerRow[]).map(recordFromRow);
  }

  #run(key: LedgerStatementKey, params: Readonly<Record<string, SqlValue>>): number {
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
