import { type Delivery, type PublishInput, Queue, type QueueHooks } from '@queueport/core';
import type { Driver, OutgoingMessage, ReleaseEntry } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { FakeDriver, type FakeDriverOptions } from './fake-driver';

export const NATIVE = 900;
export const WEEK_SECONDS = 604_800;

/** Eight attributes: every one the application may set, so the bridge's own has to fit beside them. */
export const EIGHT_ATTRIBUTES = Object.fromEntries(
  Array.from({ length: 8 }, (_, i) => [`attr${i}`, `value-${i}`]),
);

/**
 * A fake driver holding at most 15 minutes natively, a Queue over it on a VirtualClock, and a
 * record of every delay the driver was handed (publish and release alike).
 */
export function bridgedSetup(
  options: Omit<FakeDriverOptions, 'clock'> = {},
  wrap: (driver: Driver) => Driver = (d) => d,
  hooks: QueueHooks = {},
) {
  const clock = new VirtualClock();
  const fake = new FakeDriver({ nativeMaxDelaySeconds: NATIVE, ...options, clock });
  const delays: number[] = [];
  const published: OutgoingMessage[] = [];
  const recording: Driver = {
    name: fake.name,
    capabilities: fake.capabilities,
    publish: (messages) => {
      published.push(...messages);
      delays.push(...messages.map((m) => m.delaySeconds));
      return fake.publish(messages);
    },
    receive: (request) => fake.receive(request),
    ack: (receipts) => fake.ack(receipts),
    release: (entries: readonly ReleaseEntry[]) => {
      delays.push(...entries.map((e) => e.delaySeconds));
      return fake.release(entries);
    },
    extendLease: (entries) => fake.extendLease(entries),
    deadLetter: (entries) => fake.deadLetter(entries),
    close: () => fake.close(),
  };
  const queue = new Queue(wrap(recording), { clock, retry: { maxAttempts: 1 }, hooks });
  return { clock, fake, queue, delays, published };
}

export function weekLater(id: string, extra: Omit<PublishInput, 'envelope'> = {}): PublishInput {
  return {
    envelope: { event_id: id, type: 'test.bridged', payload: { id } },
    delaySeconds: WEEK_SECONDS,
    ...extra,
  };
}

export interface Arrival {
  at: number;
  delivery: Delivery;
}

/**
 * Receives every `stepMs` of virtual time until `until`, as a worker polling the queue would,
 * acking what arrives and noting when. Whatever the bridge does between hops happens on these
 * receives.
 */
export async function pollUntil(
  queue: Queue,
  clock: VirtualClock,
  until: number,
  stepMs: number,
  arrivals: Arrival[] = [],
): Promise<Arrival[]> {
  for (;;) {
    for (const delivery of await queue.receive({ maxMessages: 10 })) {
      arrivals.push({ at: clock.now(), delivery });
      await delivery.ack();
    }
    if (clock.now() >= until) return arrivals;
    await clock.advance(Math.min(stepMs, until - clock.now()));
  }
}
