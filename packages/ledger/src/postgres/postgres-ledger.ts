import { createHash } from 'node:crypto';
import { type Clock, normalizeError, QueueError, systemClock } from '@queueport/core/driver';
import type { Pool, PoolClient } from 'pg';
import { decideClaim } from '../claim-decision';
import { invalidArgument, leaseLost, ledgerClosed } from '../errors';
import type {
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerRecord,
  ReleaseRequest,
  ScanRequest,
  SettleRequest,
} from '../ledger';
import { migratePostgres } from '../migrations/postgres';
import { type LedgerRow, recordFromRow, recordToParams, type SqlValue } from '../record';
import { type SettleKind, settlementParams } from '../settlement';
import { bindValues, type CompiledSql, compileNamed } from '../sql';
import { LEDGER_TABLE, type LedgerStatementKey, ledgerStatements, PRUNE_BATCH } from '../statements';
import {
  checkAmbiguousScan,
  checkClaim,
  checkEventId,
  checkPrune,
  checkScan,
  checkSettle,
  secondsToMs,
} from '../validation';

export interface PostgresLedgerOptions {
  /** Used to create a pool the ledger owns (and ends on close). Without it and `pool`, pg reads PG* variables. */
  connectionString?: string;
  /** A pool the application owns: the ledger uses it and leaves it open on close. */
  pool?: Pool;
  /** Where the tables live (created when missing). Default "public". */
  schema?: string;
  clock?: Clock;
}

type Queryable = Pick<PoolClient, 'query'>;
type Statement = CompiledSql & { name: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** A claim whose row vanished between the insert and the lock (pruned) starts over, this often at most. */
const CLAIM_ROUNDS = 3;

/**
 * The ledger in PostgreSQL through a pg Pool. Times come from the injected clock, stored as
 * BIGINT epoch ms. The claim of an id never seen is one INSERT … ON CONFLICT DO NOTHING; the
 * claim of an existing id is one short transaction that locks the row (SELECT … FOR UPDATE),
 * decides with `decideClaim`, and writes. Settling is one conditional UPDATE. No transaction
 * awaits anything but the database.
 */
export class PostgresLedger implements Ledger {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  readonly #statements: Record<LedgerStatementKey, Statement>;
  readonly #lockRow: CompiledSql & { name: string };
  #closed = false;

  private constructor(pool: Pool, ownsPool: boolean, clock: Clock, table: string, schema: string) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#clock = clock;
    // Prepared statement names are per connection; the schema's hash keeps two ledgers sharing a
    // pool from colliding.
    const prefix = `qpl_${createHash('sha256').update(schema).digest('hex').slice(0, 12)}_`;
    const sql = ledgerStatements(table);
    this.#statements = Object.fromEntries(
      Object.entries(sql).map(([key, text]) => [
        key,
        { ...compileNamed(text, 'postgres'), name: prefix + key },
      ]),
    ) as Record<LedgerStatementKey, Statement>;
    this.#lockRow = { ...compileNamed(`${sql.get} FOR UPDATE`, 'postgres'), name: `${prefix}lockRow` };
  }

  static async open(options: PostgresLedgerOptions = {}): Promise<PostgresLedger> {
    if (options.pool && options.connectionString !== undefined) {
      throw invalidArgument('pass either pool or connectionString, not both');
    }
    const schema = options.schema ?? 'public';
    if (!IDENTIFIER.test(schema)) {
      throw invalidArgument('schema must be a plain identifier (letters, digits, underscore; at most 63)');
    }
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
      const client = await pool.connect();
      let broken: unknown;
      try {
        await migratePostgres(client, schema, quoted, clock.now());
      } catch (error) {
        broken = error;
        throw error;
      } finally {
        client.release(broken instanceof Error ? broken : undefined);
      }
      return new PostgresLedger(pool, ownsPool, clock, `${quoted}.${LEDGER_TABLE}`, schema);
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw toQueueError(error);
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    checkClaim(request);
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

  async prune(request: { olderThanSeconds: number }): Promise<number> {
    checkPrune(request);
    return this.#guard(async () => {
      const cutoff = this.#clock.now() - secondsToMs(request.olderThanSeconds);
      let total = 0;
      for (;;) {
        const deleted =
          (await this.#query(this.#pool, 'pruneBatch', { cutoff, batch: PRUNE_BATCH })).rowCount ?? 0;
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  /**
   * One short transaction on one connection: lock the row, decide, write. Returns undefined when
   * the row disappeared and a concurrent claim re-created it first (start over).
   */
  async #claimExisting(request: ClaimRequest, now: number): Promise<ClaimResult | undefined> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
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
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  async #settle(kind: SettleKind, request: SettleRequest | ReleaseRequest): Promise<LedgerRecord> {
    checkSettle(request);
    return this.#guard(async () => {
      const [row] = await this.#rows(
        this.#pool,
        'settle',
        settlementParams(kind, request, this.#clock.now()),
      );
      if (!row) throw leaseLost(request.eventId);
      return recordFromRow(row);
    });
  }

  async #rows(db: Queryable, key: LedgerStatementKey, params: Readonly<Record<string, SqlValue>>) {
    return (await this.#query(db, key, params)).rows;
  }

  #query(db: Queryable, key: LedgerStatementKey, params: Readonly<Record<string, SqlValue>>) {
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
