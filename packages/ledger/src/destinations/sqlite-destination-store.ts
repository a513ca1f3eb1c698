import type { Clock, QueueError } from '@queueport/core';
import type Database from 'better-sqlite3';
import { leaseLost, ledgerClosed } from '../errors';
import { type LedgerRow, recordFromRow, type SqlValue } from '../record';
import { bindValues, type CompiledSql, compileNamed } from '../sql';
import { LEDGER_TABLE } from '../statements';
import { outcomeOf } from '../validation';
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
import {
  type DestinationRow,
  type DestinationStatementKey,
  destinationStatements,
  type ParkedRow,
  parkedFromRow,
  parkedOutcome,
  stateFromRow,
} from './destination-statements';
import {
  checkDestinationId,
  checkDisable,
  checkListDestinations,
  checkListParked,
  checkPark,
  checkUnpark,
} from './destination-validation';

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
    const { limit, after } = checkListDestinations(request);
    return this.#guard(() =>
      (
        this.#all(after === undefined ? 'list' : 'listAfter', {
          limit,
          after: after ?? null,
        }) as DestinationRow[]
      ).map(stateFromRow),
    );
  }

  async disabledIds(): Promise<string[]> {
    return this.#guard(() =>
      (this.#all('disabledIds', {}) as { destination_id: string }[]).map((r) => r.destination_id),
    );
  }

  async disable(request: DisableRequest): Promise<DestinationChange> {
    checkDisable(request);
    return this.#guard(() =>
      this.#seams.db
        .transaction(() => {
          const params = {
            destination_id: request.destinationId,
            reason: outcomeOf(request.reason),
            yes: true,
            now: this.#seams.clock.now(),
          };
          const changed = this.#get('disable', params) !== undefined;
          return { changed, state: this.#state(request.destinationId) };
        })
        .immediate(),
    );
  }

  async enable(destinationId: string): Promise<DestinationChange> {
    checkDestinationId(destinationId);
    return this.#guard(() =>
      this.#seams.db
        .transaction(() => {
          const params = { destination_id: destinationId, no: false, now: this.#seams.clock.now() };
          const changed = this.#get('enable', params) !== undefined;
          return { changed, state: this.#state(destinationId) };
        })
        .immediate(),
    );
  }

  async park(request: ParkRequest): Promise<ParkResult> {
    checkPark(request);
    return this.#guard(() =>
      this.#seams.db
        .transaction((): ParkResult => {
          const flag = this.#get('isDisabled', { destination_id: request.destinationId }) as
            | { disabled: number }
            | undefined;
          if (flag?.disabled !== 1) return { status: 'enabled' };
          const now = this.#seams.clock.now();
          const row = this.#get('parkLedgerRow', {
            event_id: request.eventId,
            owner: request.owner,
            uncount: request.attemptMade === true ? 0 : 1,
            last_outcome: outcomeOf(parkedOutcome(request.destinationId, request.outcome)),
            ambiguous: request.ambiguous === true,
            now,
          }) as LedgerRow | undefined;
          if (!row) throw leaseLost(request.eventId);
          const record = recordFromRow(row);
          this.#run('parkBody', {
            event_id: request.eventId,
            destination_id: request.destinationId,
            due_at: record.createdAt,
            now,
            body: request.body,
          });
          return { status: 'parked', record };
        })
        .immediate(),
    );
  }

  async listParked(request: ListParkedRequest): Promise<ParkedEvent[]> {
    checkListParked(request);
    const { after } = request;
    return this.#guard(() =>
      (
        this.#all(after === undefined ? 'listParked' : 'listParkedAfter', {
          destination_id: request.destinationId,
          limit: request.limit,
          after_due_at: after?.dueAt ?? null,
          after_event_id: after?.eventId ?? null,
        }) as ParkedRow[]
      ).map(parkedFromRow),
    );
  }

  async unpark(entries: readonly Pick<ParkedEvent, 'eventId' | 'parkCount'>[]): Promise<number> {
    checkUnpark(entries);
    if (entries.length === 0) return 0;
    return this.#guard(() =>
      this.#seams.db
        .transaction(() =>
          entries.reduce(
            (total, entry) =>
              total + this.#run('unpark', { event_id: entry.eventId, park_count: entry.parkCount }),
            0,
          ),
        )
        .immediate(),
    );
  }

  #state(destinationId: string): DestinationState | undefined {
    const row = this.#get('get', { destination_id: destinationId }) as DestinationRow | undefined;
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

  #get(key: DestinationStatementKey, params: Readonly<Record<string, SqlValue>>): unknown {
    const { compiled, prepared } = this.#statement(key);
    return prepared.get(...sqliteValues(bindValues(compiled, params)));
  }

  #all(key: DestinationStatementKey, params: Readonly<Record<string, SqlValue>>): unknown[] {
    const { compiled, prepared } = this.#statement(key);
    return prepared.all(...sqliteValues(bindValues(compiled, params)));
  }

  #run(key: DestinationStatementKey, params: Readonly<Record<string, SqlValue>>): number {
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
