import { isQueueError, QueueError, redactSecrets } from '../errors';

/**
 * Where an event that reports a problem goes when nothing listens to it: `console` unless the
 * `logger` option says otherwise. Anything with a `warn(message)` fits (console, pino, winston).
 */
export interface EventLogger {
  warn(message: string): void;
}

/** What every `error` event carries: which kind of failure it was, and the error. */
export interface ErrorEventBase {
  readonly kind: string;
  readonly error: unknown;
}

/** A listener threw, or returned a promise that rejected. The loop that emitted goes on. */
export interface ListenerErrorEvent {
  readonly kind: 'listener';
  readonly error: unknown;
  /** The event whose listener failed. */
  readonly event: string;
}

/** Event names mapped to their payloads. Every map has an `error` event. */
export type EventsShape = { error: ErrorEventBase };

/** A listener may be async; its promise is not awaited, and a rejection is reported like a throw. */
export type EventListener<P> = (payload: P) => unknown;

/** Removes the listener it was returned for; calling it again does nothing. */
export type Unsubscribe = () => void;

/** What a Queue, a Consumer and a DeliveryWorker offer for their events. */
export interface EventSource<M extends EventsShape> {
  /** Calls `listener` on every `name` event, in subscription order; returns its unsubscribe. */
  on<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): Unsubscribe;
  /** Like `on`, for the next `name` event only. */
  once<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): Unsubscribe;
  /** Removes `listener` (the latest subscription of it, by `on` or `once`) from `name`. */
  off<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): void;
  /** How many listeners `name` has. */
  listenerCount(name: keyof M & string): number;
}

/**
 * Every name of an event map, from a record that must list each one (so a name added to the map
 * and forgotten here is a type error).
 */
export function eventNames<M extends EventsShape>(
  names: Record<keyof M & string, true>,
): (keyof M & string)[] {
  return Object.keys(names) as (keyof M & string)[];
}

interface Subscription {
  readonly listener: EventListener<never>;
  readonly once: boolean;
}

export interface EmitterOptions<M extends EventsShape> {
  /** Names the emitter in what it logs: `consumer over memory`, `queue over sqs`. */
  source: string;
  /** Every event name; subscribing to any other is refused (a typo would otherwise never fire). */
  names: readonly (keyof M & string)[];
  /**
   * Events that report a problem: emitted with no listener, they are logged, once per kind
   * (an `error`'s `kind`, else the event's name). `error` always is one.
   */
  problems?: readonly (keyof M & string)[];
  logger?: EventLogger | undefined;
}

/**
 * The one event mechanism of queueport: a small typed emitter. Listeners run synchronously in
 * subscription order; one that throws (or rejects) never breaks the code that emitted, nor the
 * listeners after it: its error becomes an `error` event of kind `listener` (logged, if it was
 * an `error` listener itself). A problem event that nobody listens to is never silent: the
 * logger gets one line per kind, so a consumer whose every receive fails logs once, not once
 * per receive, and never a secret (QueueError messages are redacted when made; other messages
 * pass through `redactSecrets`).
 */
export class TypedEmitter<M extends EventsShape> implements EventSource<M> {
  readonly #subscriptions = new Map<string, readonly Subscription[]>();
  readonly #source: string;
  readonly #names: ReadonlySet<string>;
  readonly #problems: ReadonlySet<string>;
  readonly #logger: EventLogger;
  readonly #logged = new Set<string>();

  constructor(options: EmitterOptions<M>) {
    this.#source = options.source;
    this.#names = new Set(options.names);
    this.#problems = new Set(['error', ...(options.problems ?? [])]);
    this.#logger = options.logger ?? console;
  }

  on<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): Unsubscribe {
    return this.#add(name, listener, false);
  }

  once<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): Unsubscribe {
    return this.#add(name, listener, true);
  }

  off<K extends keyof M & string>(name: K, listener: EventListener<M[K]>): void {
    const list = this.#subscriptions.get(name);
    if (!list) return;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.listener === listener) {
        this.#remove(name, list[i]!);
        return;
      }
    }
  }

  /** Whether anything listens to `name`: lets a hot path skip building a payload nobody reads. */
  has(name: keyof M & string): boolean {
    return this.#subscriptions.has(name);
  }

  listenerCount(name: keyof M & string): number {
    return this.#subscriptions.get(name)?.length ?? 0;
  }

  /**
   * Calls every listener of `name` with `payload`; returns whether there was one. A problem
   * event with none is logged (once per kind) unless `heardElsewhere` says someone already has
   * it, as when a worker re-emits what its consumer emitted.
   */
  emit<K extends keyof M & string>(name: K, payload: M[K], heardElsewhere = false): boolean {
    const list = this.#subscriptions.get(name);
    if (!list) {
      if (!heardElsewhere && this.#problems.has(name)) this.#log(name, payload);
      return false;
    }
    // The list is replaced, never changed, on (un)subscribe: this loop sees a stable snapshot.
    for (const subscription of list) {
      if (subscription.once) this.#remove(name, subscription);
      try {
        const result = (subscription.listener as EventListener<M[K]>)(payload);
        if (isThenable(result)) result.then(undefined, (error: unknown) => this.#listenerFailed(name, error));
      } catch (error) {
        this.#listenerFailed(name, error);
      }
    }
    return true;
  }

  #add(name: string, listener: unknown, once: boolean): Unsubscribe {
    if (!this.#names.has(name)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `${this.#source} has no event ${JSON.stringify(String(name))}; its events are ${[...this.#names].join(', ')}`,
        { details: { field: 'name' } },
      );
    }
    if (typeof listener !== 'function') {
      throw new QueueError('INVALID_ARGUMENT', `a listener for ${name} must be a function`, {
        details: { field: 'listener' },
      });
    }
    const subscription: Subscription = { listener: listener as EventListener<never>, once };
    this.#subscriptions.set(name, [...(this.#subscriptions.get(name) ?? []), subscription]);
    return () => this.#remove(name, subscription);
  }

  #remove(name: string, subscription: Subscription): void {
    const list = this.#subscriptions.get(name);
    if (!list?.includes(subscription)) return;
    const rest = list.filter((s) => s !== subscription);
    if (rest.length === 0) this.#subscriptions.delete(name);
    else this.#subscriptions.set(name, rest);
  }

  #listenerFailed(name: string, error: unknown): void {
    const payload: ListenerErrorEvent = { kind: 'listener', error, event: name };
    // An error listener that fails goes straight to the logger: re-emitting could loop.
    if (name === 'error') this.#log('error', payload);
    else this.emit('error', payload as unknown as M['error']);
  }

  #log(name: string, payload: unknown): void {
    const kind = name === 'error' ? String((payload as ErrorEventBase).kind) : name;
    const key = `${name}:${kind}`;
    if (this.#logged.has(key)) return;
    this.#logged.add(key);
    const error = (payload as { error?: unknown } | undefined)?.error;
    const what = name === 'error' ? `'error' (${kind})` : `'${name}'`;
    const via = (payload as Partial<ListenerErrorEvent>).event;
    const line =
      `queueport: ${this.#source}: nothing listens to ${what}${kind === 'listener' && via ? ` (a '${via}' listener failed)` : ''}: ` +
      `${describeError(error)}. Later ones of this kind are not logged; listen with .on('${name}', …) to see each.`;
    try {
      this.#logger.warn(line);
    } catch {
      // A logger that fails must not break the loop either.
    }
  }
}

/** One line about an error, without its stack or details; QueueError messages are already redacted. */
export function describeError(error: unknown): string {
  if (isQueueError(error)) return `QueueError ${error.code}: ${error.message}`;
  try {
    if (error instanceof Error) return `${error.name}: ${redactSecrets(error.message)}`;
    return redactSecrets(String(error));
  } catch {
    return 'an error that cannot be described';
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
