import type { EventSource, EventsShape } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import type { VirtualClock } from '@queueport/core/testing';
import type { FakeDriver } from './fake-driver';

export interface Recorded<M> {
  name: keyof M & string;
  payload: M[keyof M];
}

/** Every event of `names` that `source` emits, in order. */
export function record<M extends EventsShape>(
  source: EventSource<M>,
  names: readonly (keyof M & string)[],
): Array<Recorded<M>> {
  const log: Array<Recorded<M>> = [];
  for (const name of names) source.on(name, (payload) => void log.push({ name, payload }));
  return log;
}

export const namesOf = <M>(log: ReadonlyArray<Recorded<M>>) => log.map((entry) => entry.name);

/** The payload of the `index`-th `name` event (first by default). */
export function payloadOf<M, K extends keyof M & string>(
  log: ReadonlyArray<Recorded<M>>,
  name: K,
  index = 0,
): M[K] {
  const found = log.filter((entry) => entry.name === name)[index];
  if (!found) throw new Error(`no ${name} event #${index}; got ${namesOf(log).join(', ')}`);
  return found.payload as M[K];
}

/** Moves the virtual clock in steps until `check` holds: a wait, not an assertion about time. */
export async function until(clock: VirtualClock, check: () => boolean, what: string, stepMs = 100) {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await clock.advance(stepMs);
  }
  throw new Error(`gave up waiting for ${what}`);
}

export function tracked(promise: Promise<unknown>) {
  const state = { settled: false };
  const settle = () => {
    state.settled = true;
  };
  promise.then(settle, settle);
  return state;
}

/** Resolves `promise`, moving the virtual clock while it is pending (a close waiting on a long poll). */
export async function settleOn<T>(clock: VirtualClock, promise: Promise<T>): Promise<T> {
  const state = tracked(promise);
  await until(clock, () => state.settled, 'the promise to settle');
  return promise;
}

/** The fake driver with some of its calls replaced: a provider that misbehaves in one way. */
export function wrapDriver(fake: FakeDriver, overrides: Partial<Driver> = {}): Driver {
  return {
    name: fake.name,
    capabilities: fake.capabilities,
    publish: (messages) => fake.publish(messages),
    receive: (request) => fake.receive(request),
    ack: (receipts) => fake.ack(receipts),
    release: (entries) => fake.release(entries),
    extendLease: (entries) => fake.extendLease(entries),
    deadLetter: (entries) => fake.deadLetter(entries),
    close: () => fake.close(),
    ...overrides,
  };
}

/** A promise that never settles: a handler stuck for good. */
export const never = () => new Promise<never>(() => {});
