import type { Clock, QueueError } from '@queueport/core';
import type Database from 'better-sqlite3';
import { ledgerClosed } from '../errors';
import type { LedgerRow, SqlValue } from '../record';
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
  type ParkedRow,
  parkCalls,
  parkedFromRow,
  type StateChangeCall,
  type StatementCall,
  stateCall,
  stateFromRow,
} from './destination-store-calls';
import { checkDestinationId, checkUnpark } from './destination-validation';

export interface SqliteDestinationStoreSeams {
  db: Database.Database;
  clock: Clock;
  /** The ledger's own state: once it is closed, so is this store. */
  isClosed: () => boolean;
  toQueueError: (error: unknown) => QueueError;
}

type Statement = { compiled: CompiledSql; prepared: Database.Statement };

/**
 * Destination state on the SQLite ledger's own connection. Each write is one IMMEDIATE
 * transaction, so a park and a CLI's enable in another process are serialised by the file's
 * write lock: a park either commits before the enable (and the resume that follows sees it) or
 * finds the destination enabled and writes nothing.
 */
export class SqliteDestinationStore implements DestinationStateStore {
  readonly #seams: SqliteDestinationStoreSeams;
  #statements: Record<DestinationStatementKey, Statement> | undefined;

  constructor(seams: SqliteDestinationStoreSeams) {
    this.#seams = seams;
  }

  async get(destinationId: string): Promise<DestinationState | undefined> {
    checkDestinationId(destinationId);
    return this.#guard(() => this.#state(destinationId));
  }

  async list(request: ListDestinationsRequest = {}): Promise<DestinationState[]> {
    const call = listCall(request);
    return this.#guard(() => (this.#all(call) as DestinationRow[]).map(stateFromRow));
  }

  async disabledIds(): Promise<string[]> {
    return this.#guard(() =>
      (this.#all({ key: 'disabledIds', params: {} }) as { destination_id: string }[]).map(
        (row) => row.destination_id,
      ),
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
      this.#seams.db
        .transaction((): ParkResult => {
          const flag = this.#get({ key: 'isDisabled', params: { destination_id: request.destinationId } }) as
            | { disabled: number }
            | undefined;
          if (flag?.disabled !== 1) return { status: 'enabled' };
          const now = this.#seams.clock.now();
          const row = this.#get(calls.ledgerRow(now)) as LedgerRow | undefined;
          const { writes, result } = calls.afterLedgerRow(row, now);
          for (const write of writes) this.#run(write);
          return result;
        })
        .immediate(),
    );
  }

  async listParked(request: ListParkedRequest): Promise<ParkedEvent[]> {
    const call = listParkedCall(request);
    return this.#guard(() => (this.#all(call) as ParkedRow[]).map(parkedFromRow));
  }

  async unpark(entries: readonly Pick<ParkedEvent, 'eventId' | 'parkCount'>[]): Promise<number> {
    checkUnpark(entries);
    if (entries.length === 0) return 0;
    return this.#guard(() =>
      this.#seams.db
        .transaction(() =>
          entries.reduce(
            (total, entry) =>
              total +
              this.#run({ key: 'unpark', params: { event_id: entry.eventId, park_count: entry.parkCount } }),
            0,
          ),
        )
        .immediate(),
    );
  }

  #change(change: StateChangeCall): DestinationChange {
    return this.#guard(() =>
      this.#seams.db
        .transaction(() => {
          const changed = this.#get(change.at(this.#seams.clock.now())) !== undefined;
          return { changed, state: this.#state(change.destinationId) };
        })
        .immediate(),
    );
  }

  #state(destinationId: string): DestinationState | undefined {
    const row = this.#get(stateCall(destinationId)) as DestinationRow | undefined;
    return row && stateFromRow(row);
  }

  /** Prepared on first use: a ledger that never touches destinations prepares nothing. */
  #statement(key: DestinationStatementKey): Statement {
    this.#statements ??= Object.fromEntries(
      Object.entries(destinationStatements(LEDGER_TABLE)).map(([name, text]) => {
        const compiled = compileNamed(text, 'sqlite');
        return [name, { compiled, prepared: this.#seams.db.prepare(compiled.text) }];
      }),
    ) as Record<DestinationStatementKey, Statement>;
    return this.#statements[key];
  }

  #get({ key, params }: StatementCall): unknown {
    const { compiled, prepared } = this.#statement(key);
    return prepared.get(...sqliteValues(bindValues(compiled, params)));
  }

  #all({ key, params }: StatementCall): unknown[] {
    const { compiled, prepared } = this.#statement(key);
    return prepared.all(...sqliteValues(bindValues(compiled, params)));
  }

  #run({ key, params }: StatementCall): number {
    const { compiled, prepared } = this.#statement(key);
    return prepared.run(...sqliteValues(bindValues(compiled, params))).changes;
  }

  #guard<T>(operation: () => T): T {
    if (this.#seams.isClosed()) throw ledgerClosed();
    try {
      return operation();
    } catch (error) {
      throw this.#seams.toQueueError(error);
    }
  }
}

function sqliteValues(values: SqlValue[]): (string | number | null)[] {
  return values.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}
