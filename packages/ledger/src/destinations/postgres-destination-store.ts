import { createHash } from 'node:crypto';
import type { Clock, QueueError } from '@queueport/core';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { ledgerClosed } from '../errors';
import type { LedgerRow } from '../record';
import { bindValues, type CompiledSql, compileNamed } from '../sql';
import { LEDGER_TABLE } from '../statements';
import type {
  DestinationChange,
  DestinationState,
  DestinationStateStore,
  DisableRequest,
  ListDestinationsRequest,
  ListParkedRequest,
  ParkedEvent,
  ParkRequest,
  ParkResult,
} from './destination-state';
import { type DestinationStatementKey, destinationStatements } from './destination-statements';
import {
  type DestinationRow,
  disableCall,
  enableCall,
  listCall,
  listParkedCall,
  type ParkCalls,
  type ParkedRow,
  parkCalls,
  parkedFromRow,
  type StateChangeCall,
  type StatementCall,
  stateCall,
  stateFromRow,
} from './destination-store-calls';
import { checkDestinationId, checkUnpark } from './destination-validation';
import { PARKED_EVENTS_TABLE } from './migrations';

type Queryable = Pick<PoolClient, 'query'>;

export interface PostgresDestinationStoreSeams {
  pool: Pool;
  /** The ledger's schema, unquoted (a validated identifier). */
  schema: string;
  clock: Clock;
  isClosed: () => boolean;
  toQueueError: (error: unknown) => QueueError;
  /** The ledger's checkout: a client that errors mid-transaction goes back broken. */
  withClient: <T>(
    pool: Pool,
    work: (client: PoolClient, breakClient: (error: unknown) => void) => Promise<T>,
  ) => Promise<T>;
}

/**
 * Destination state in the ledger's PostgreSQL schema, through the ledger's pool. A park locks
 * the destination's row (FOR SHARE) before it writes, and an enable updates that row: so a park
 * either commits before the enable does (and the resume that follows lists it) or, waiting on
 * the lock, reads the destination enabled and writes nothing.
 */
export class PostgresDestinationStore implements DestinationStateStore {
  readonly #seams: PostgresDestinationStoreSeams;
  readonly #statements: Record<DestinationStatementKey, CompiledSql & { name: string }>;
  readonly #lockState: CompiledSql & { name: string };
  readonly #unparkMany: { name: string; text: string };

  constructor(seams: PostgresDestinationStoreSeams) {
    this.#seams = seams;
    const quoted = `"${seams.schema}"`;
    const prefix = `qpd_${createHash('sha256').update(seams.schema).digest('hex').slice(0, 12)}_`;
    const sql = destinationStatements(`${quoted}.${LEDGER_TABLE}`);
    this.#statements = Object.fromEntries(
      Object.entries(sql).map(([key, text]) => [
        key,
        { ...compileNamed(text, 'postgres'), name: prefix + key },
      ]),
    ) as Record<DestinationStatementKey, CompiledSql & { name: string }>;
    this.#lockState = {
      ...compileNamed(`${sql.isDisabled} FOR SHARE`, 'postgres'),
      name: `${prefix}lockState`,
    };
    this.#unparkMany = {
      name: `${prefix}unparkMany`,
      text:
        `DELETE FROM ${quoted}.${PARKED_EVENTS_TABLE} p USING unnest($1::text[], $2::int[]) AS u(event_id, park_count) ` +
        'WHERE p.event_id = u.event_id AND p.park_count = u.park_count',
    };
  }

  async get(destinationId: string): Promise<DestinationState | undefined> {
    checkDestinationId(destinationId);
    return this.#guard(() => this.#state(this.#seams.pool, destinationId));
  }

  async list(request: ListDestinationsRequest = {}): Promise<DestinationState[]> {
    const call = listCall(request);
    return this.#guard(async () =>
      (await this.#rows<DestinationRow>(this.#seams.pool, call)).map(stateFromRow),
    );
  }

  async disabledIds(): Promise<string[]> {
    return this.#guard(async () =>
      (
        await this.#rows<{ destination_id: string }>(this.#seams.pool, { key: 'disabledIds', params: {} })
      ).map((row) => row.destination_id),
    );
  }

  async disable(request: DisableRequest): Promise<DestinationChange> {
    return this.#change(disableCall(request));
  }

  async enable(destinationId: string): Promise<DestinationChange> {
    return this.#change(enableCall(destinationId));
  }

  async park(request: ParkRequest): Promise<ParkResult> {
    const calls = parkCalls(request);
    return this.#guard(() =>
      this.#seams.withClient(this.#seams.pool, async (client, breakClient) => {
        await client.query('BEGIN');
        try {
          const result = await this.#parkIn(client, request.destinationId, calls);
          await client.query(result.status === 'parked' ? 'COMMIT' : 'ROLLBACK');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(breakClient);
          throw error;
        }
      }),
    );
  }

  async listParked(request: ListParkedRequest): Promise<ParkedEvent[]> {
    const call = listParkedCall(request);
    return this.#guard(async () => (await this.#rows<ParkedRow>(this.#seams.pool, call)).map(parkedFromRow));
  }

  async unpark(entries: readonly Pick<ParkedEvent, 'eventId' | 'parkCount'>[]): Promise<number> {
    checkUnpark(entries);
    if (entries.length === 0) return 0;
    return this.#guard(async () => {
      const answer = await this.#seams.pool.query({
        ...this.#unparkMany,
        values: [entries.map((entry) => entry.eventId), entries.map((entry) => entry.parkCount)],
      });
      return answer.rowCount ?? 0;
    });
  }

  async #parkIn(client: PoolClient, destinationId: string, calls: ParkCalls): Promise<ParkResult> {
    const locked = await client.query<{ disabled: boolean }>({
      name: this.#lockState.name,
      text: this.#lockState.text,
      values: bindValues(this.#lockState, { destination_id: destinationId }),
    });
    if (locked.rows[0]?.disabled !== true) return { status: 'enabled' };
    const now = this.#seams.clock.now();
    const [row] = await this.#rows<LedgerRow>(client, calls.ledgerRow(now));
    const { writes, result } = calls.afterLedgerRow(row, now);
    for (const write of writes) await this.#rows(client, write);
    return result;
  }

  async #change(change: StateChangeCall): Promise<DestinationChange> {
    return this.#guard(async () => {
      const changed = (await this.#rows(this.#seams.pool, change.at(this.#seams.clock.now()))).length > 0;
      return { changed, state: await this.#state(this.#seams.pool, change.destinationId) };
    });
  }

  async #state(db: Queryable, destinationId: string): Promise<DestinationState | undefined> {
    const [row] = await this.#rows<DestinationRow>(db, stateCall(destinationId));
    return row && stateFromRow(row);
  }

  async #rows<R extends QueryResultRow>(db: Queryable, { key, params }: StatementCall): Promise<R[]> {
    const statement = this.#statements[key];
    const answer = await db.query<R>({
      name: statement.name,
      text: statement.text,
      values: bindValues(statement, params),
    });
    return answer.rows;
  }

  async #guard<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#seams.isClosed()) throw ledgerClosed();
    try {
      return await operation();
    } catch (error) {
      throw this.#seams.toQueueError(error);
    }
  }
}
