import { Queue, QueueError } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createInfraiAdapter, idempotencyKey } from '../src';
import { callCapability } from '../src/testing/raw-client';

/** The key the driver sends for an event on the `orders` queue. */
const keyOf = (eventId: string) => idempotencyKey('orders', eventId);

import {
  batchKeys,
  drain,
  event,
  type Fixture,
  type FixtureOptions,
  recordingDispatcher,
  startFixture,
  tally,
} from './support/infrai-fixture';

// Every fault here goes through the portable Queue over the adapter, opened by URL, against the
// simulator: the Queue's own retry policy (real time) is what absorbs them.

let fixture: Fixture | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function started(options: FixtureOptions = {}): Promise<Fixture> {
  fixture = await startFixture(options);
  return fixture;
}

async function withQueue(options: FixtureOptions = {}): Promise<{ f: Fixture; queue: Queue }> {
  const f = await started(options);
  await f.admin.createQueue({ name: 'orders' });
  return { f, queue: await f.open('orders') };
}

function retriesOf(queue: Queue) {
  const retries: Array<{ operation: string; attempt: number; delayMs: number; error: QueueError }> = [];
  queue.on('retry', (info) => retries.push(info));
  return retries;
}

describe('429 with Retry-After is honoured', () => {
  it('the simulator’s rate limit: the retry comes at least Retry-After (1 s) after the refusal, and the message is there once', async () => {
    // Two keys: the limit is per key, so the admin's calls and the checks don't use up the queue's.
    const f = await started({
      simulator: { apiKeys: ['ifr_queue_key', 'ifr_admin_key'], rateLimit: { requests: 1, perSeconds: 1 } },
      adapter: { apiKey: 'ifr_admin_key' },
    });
    // One call (the admin's create makes three, past the limit).
    await callCapability(
      f.sim,
      'queue.create',
      { name: 'orders', idempotency_key: 'k' },
      { apiKey: 'ifr_admin_key' },
    );
    const driver = await createInfraiAdapter({ apiKey: 'ifr_queue_key' }).open(f.urlOf('orders'), {});
    const queue = new Queue(driver, { retry: { maxAttempts: 3, baseMs: 1, maxMs: 5 } });
    cleanups.push(() => queue.close());
    const retries = retriesOf(queue);
    const input = event();

    const receipt = await queue.publish(input);

    const publishes = f.calls('queue.publish_batch');
    expect(publishes.map((r) => r.status)).toEqual([429, 200]);
    expect(publishes[1]!.at - publishes[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterSeconds: 1 });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(publishes[1]!.idempotencyKeys).toEqual([keyOf(input.envelope.event_id)]);
    expect(f.sim.queueState('orders')?.total).toBe(1);
    expect(receipt.eventId).toBe(input.envelope.event_id);
  });

  it('an injected 429 (retryAfterSeconds: 1): published once, after waiting at least 1 s', async () => {
    const { f, queue } = await withQueue();
    const retries = retriesOf(queue);
    f.sim.faults.inject({
      kind: 'status',
      status: 429,
      retryAfterSeconds: 1,
      capability: 'queue.publish_batch',
    });
    const input = event();
    const started = performance.now();

    await queue.publish(input);

    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    const publishes = f.calls('queue.publish_batch');
    expect(publishes.map((r) => r.status)).toEqual([429, 200]);
    expect(publishes[1]!.at - publishes[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(retries.map((r) => [r.error.code, r.error.retryAfterSeconds])).toEqual([['RATE_LIMITED', 1]]);
    expect(tally(await drain(queue))).toEqual({ [input.envelope.event_id]: 1 });
  });

  it('a 429 with Retry-After on a receive is honoured too', async () => {
    const { f, queue } = await withQueue();
    await queue.publish(event());
    f.sim.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 1, capability: 'queue.consume' });
    const [delivery] = await queue.receive();
    expect(delivery).toBeDefined();
    const consumes = f.calls('queue.consume');
    expect(consumes.map((r) => r.status)).toEqual([429, 200]);
    expect(consumes[1]!.at - consumes[0]!.at).toBeGreaterThanOrEqual(1000);
  });
});

describe('402 INSUFFICIENT_CREDIT is terminal and says so', () => {
  function expectTerminal(error: unknown) {
    expect(error).toBeInstanceOf(QueueError);
    const e = error as QueueError;
    expect(e.retryable).toBe(false);
    expect(e.code).toBe('UNAUTHORIZED');
    expect(e.message).toMatch(/no credit/);
    expect(e.message).toMatch(/not retried/);
    expect(e.message).toMatch(/INSUFFICIENT_CREDIT, HTTP 402/);
    expect(e.details).toMatchObject({ terminal: true, httpStatus: 402, infraiCode: 'INSUFFICIENT_CREDIT' });
  }

  it('publish: one attempt, no retry, a QueueError that says the account has no credit', async () => {
    const { f, queue } = await withQueue();
    const retries = retriesOf(queue);
    f.sim.setCredit(0);
    const error = await queue.publish(event()).catch((e: unknown) => e);
    expectTerminal(error);
    expect(f.calls('queue.publish_batch').map((r) => r.status)).toEqual([402]);
    expect(retries).toEqual([]);
    expect(f.sim.queueState('orders')?.total).toBe(0);
  });

  it('a batch: one attempt for the whole batch', async () => {
    const { f, queue } = await withQueue();
    f.sim.setCredit(0);
    const error = await queue.publishBatch([event(), event(), event()]).catch((e: unknown) => e);
    expectTerminal(error);
    expect(f.calls('queue.publish_batch')).toHaveLength(1);
  });

  it('receive: one attempt, no retry', async () => {
    const { f, queue } = await withQueue();
    await queue.publish(event());
    const retries = retriesOf(queue);
    f.sim.setCredit(0);
    expectTerminal(await queue.receive().catch((e: unknown) => e));
    expect(f.calls('queue.consume').map((r) => r.status)).toEqual([402]);
    expect(retries).toEqual([]);
    expect(f.sim.queueState('orders')?.available).toBe(1);
  });

  it('a consumer reports it; each of its polls is a single attempt (the Queue does not retry it)', async () => {
    const { f, queue } = await withQueue();
    f.sim.setCredit(0);
    const errors: unknown[] = [];
    let handled = 0;
    const consumer = queue.consume(
      async () => {
        handled++;
      },
      { onError: (error) => errors.push(error) },
    );
    const deadline = Date.now() + 2000;
    while (errors.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await consumer.close();
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expectTerminal(errors[0]);
    // The consumer keeps polling on its own backoff (it never gives up), one request a poll.
    // (Closing may abort one poll in flight, which then reports nothing.)
    const polls = f.calls('queue.consume').length;
    expect(polls).toBeGreaterThanOrEqual(errors.length);
    expect(polls).toBeLessThanOrEqual(errors.length + 1);
    expect(handled).toBe(0);
  });

  it('ack and release: one attempt each', async () => {
    const { f, queue } = await withQueue({ simulator: { clock: new VirtualClock() } });
    await queue.publishBatch([event(), event()]);
    const [a, b] = await queue.receive({ maxMessages: 2 });
    f.sim.setCredit(0);
    expectTerminal(await a!.ack().catch((e: unknown) => e));
    expectTerminal(await b!.release().catch((e: unknown) => e));
    expect(f.calls('queue.ack')).toHaveLength(1);
    expect(f.calls('queue.nack')).toHaveLength(1);
  });
});

describe('dropped connections and 5xx bursts are retried without a duplicate', () => {
  async function recorded(options: FixtureOptions = {}) {
    const wire = recordingDispatcher();
    cleanups.push(wire.close);
    const { f, queue } = await withQueue({
      simulator: { clock: new VirtualClock(), ...options.simulator },
      adapter: { dispatcher: wire.dispatcher },
    });
    const sentBatches = () =>
      wire.sent.filter((r) => r.path.endsWith('/v1/queue/publish_batch')).map((r) => batchKeys(r.body));
    return { f, queue, sentBatches };
  }

  /** Exactly one message per event id: in the simulator's count and in what a drain receives. */
  async function expectOncePerEvent(f: Fixture, queue: Queue, ids: readonly string[]) {
    expect(f.sim.queueState('orders')?.total).toBe(ids.length);
    expect(tally(await drain(queue))).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    expect(f.sim.queueState('orders')?.total).toBe(0);
  }

  it('drop-after (committed, answer lost) on a single publish: retried with the same key, answered from the idempotency store', async () => {
    const { f, queue, sentBatches } = await recorded();
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.publish_batch' });
    const input = event();
    const id = input.envelope.event_id;

    const receipt = await queue.publish(input);

    const log = f.calls('queue.publish_batch');
    expect(log).toMatchObject([
      { status: 200, dropped: 'after', idempotencyKeys: [keyOf(id)] },
      { status: 200, replayed: true, idempotencyKeys: [keyOf(id)] },
    ]);
    expect(sentBatches()).toEqual([[keyOf(id)], [keyOf(id)]]);
    expect(receipt.messageId).not.toBe('');
    await expectOncePerEvent(f, queue, [id]);
  });

  it('drop-after on a batch of five: every event once', async () => {
    const { f, queue, sentBatches } = await recorded();
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.publish_batch' });
    const inputs = [event(), event(), event(), event(), event()];
    const ids = inputs.map((i) => i.envelope.event_id);

    const receipts = await queue.publishBatch(inputs);

    expect(receipts.map((r) => r.eventId)).toEqual(ids);
    expect(new Set(receipts.map((r) => r.messageId)).size).toBe(5);
    const log = f.calls('queue.publish_batch');
    expect(log).toMatchObject([
      { dropped: 'after', idempotencyKeys: ids.map(keyOf) },
      { replayed: true, idempotencyKeys: ids.map(keyOf) },
    ]);
    expect(sentBatches()).toEqual([ids.map(keyOf), ids.map(keyOf)]);
    await expectOncePerEvent(f, queue, ids);
  });

  it('drop-before (nothing done) on a batch of three: retried with the same keys, published once', async () => {
    const { f, queue, sentBatches } = await recorded();
    f.sim.faults.inject({ kind: 'drop-before', capability: 'queue.publish_batch' });
    const inputs = [event(), event(), event()];
    const ids = inputs.map((i) => i.envelope.event_id);

    await queue.publishBatch(inputs);

    const log = f.calls('queue.publish_batch');
    expect(log.map((r) => [r.status, r.dropped, r.replayed])).toEqual([
      [0, 'before', undefined],
      [200, undefined, undefined],
    ]);
    // The simulator's log has no keys for a request it dropped before reading it; the wire has.
    expect(log[1]!.idempotencyKeys).toEqual(ids.map(keyOf));
    expect(sentBatches()).toEqual([ids.map(keyOf), ids.map(keyOf)]);
    await expectOncePerEvent(f, queue, ids);
  });

  it('a burst of three 503s on queue.publish_batch: the fourth try lands, every event once', async () => {
    const { f, queue, sentBatches } = await recorded();
    const retries = retriesOf(queue);
    f.sim.faults.inject({ kind: 'status', status: 503, count: 3, capability: 'queue.publish_batch' });
    const inputs = [event(), event(), event(), event()];
    const ids = inputs.map((i) => i.envelope.event_id);

    await queue.publishBatch(inputs);

    expect(f.calls('queue.publish_batch').map((r) => r.status)).toEqual([503, 503, 503, 200]);
    expect(retries.map((r) => r.error.code)).toEqual(['UNAVAILABLE', 'UNAVAILABLE', 'UNAVAILABLE']);
    expect(sentBatches()).toEqual([ids.map(keyOf), ids.map(keyOf), ids.map(keyOf), ids.map(keyOf)]);
    await expectOncePerEvent(f, queue, ids);
  });

  it('every kind in one publish: drop-after, 503, drop-before, then success; one message each', async () => {
    const { f, queue, sentBatches } = await recorded();
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.publish_batch' });
    f.sim.faults.inject({ kind: 'status', status: 503, capability: 'queue.publish_batch' });
    f.sim.faults.inject({ kind: 'drop-before', capability: 'queue.publish_batch' });
    const inputs = [event(), event()];
    const ids = inputs.map((i) => i.envelope.event_id);

    await queue.publishBatch(inputs);

    const log = f.calls('queue.publish_batch');
    // The faults apply in the order injected: first match first.
    expect(log.map((r) => r.dropped ?? r.status)).toEqual(['after', 503, 'before', 200]);
    expect(log.at(-1)).toMatchObject({ replayed: true, idempotencyKeys: ids.map(keyOf) });
    expect(sentBatches()).toEqual([ids.map(keyOf), ids.map(keyOf), ids.map(keyOf), ids.map(keyOf)]);
    await expectOncePerEvent(f, queue, ids);
  });

  it('a burst longer than the retry policy fails UNAVAILABLE (retryable), and a later publish of the same events adds nothing twice', async () => {
    const { f, queue } = await recorded();
    f.sim.faults.inject({ kind: 'drop-after', count: 4, capability: 'queue.publish_batch' });
    const inputs = [event(), event()];
    const ids = inputs.map((i) => i.envelope.event_id);
    const error = await queue.publishBatch(inputs).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(f.calls('queue.publish_batch')).toHaveLength(4);
    // All four were committed-then-dropped: the first made the messages, the rest replayed.
    expect(f.sim.queueState('orders')?.total).toBe(2);
    await queue.publishBatch(inputs);
    await expectOncePerEvent(f, queue, ids);
  });

  it('dropped ack (committed, answer lost): the retried ack answers LEASE_LOST; the message is gone and never redelivered', async () => {
    const { f, queue } = await recorded();
    const clock = f.sim.clock as VirtualClock;
    await queue.publish(event());
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.ack' });

    // What happens: the first ack deleted the message; the Queue retried the lost answer, and
    // Infrai no longer knows the receipt (RECEIPT_HANDLE_INVALID, 409), which maps to LEASE_LOST.
    const error = await delivery!.ack().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LEASE_LOST', retryable: false });
    expect(f.calls('queue.ack').map((r) => [r.status, r.dropped])).toEqual([
      [200, 'after'],
      [409, undefined],
    ]);

    expect(f.sim.queueState('orders')?.total).toBe(0);
    await clock.advance(31_000);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    await clock.advance(24 * 3600_000);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
  });

  it('dropped ack before it arrived: the retried ack succeeds', async () => {
    const { f, queue } = await recorded();
    await queue.publish(event());
    const [delivery] = await queue.receive();
    f.sim.faults.inject({ kind: 'drop-before', capability: 'queue.ack' });
    await delivery!.ack();
    expect(delivery!.settled).toBe(true);
    expect(f.calls('queue.ack').map((r) => r.status)).toEqual([0, 200]);
    expect(f.sim.queueState('orders')?.total).toBe(0);
  });

  it('dropped nack (committed, answer lost): the retried nack succeeds (the receipt is still current) and the message comes back once', async () => {
    const { f, queue } = await recorded();
    const clock = f.sim.clock as VirtualClock;
    const input = event();
    await queue.publish(input);
    const [delivery] = await queue.receive();
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.nack' });
    await delivery!.release({ delaySeconds: 5 });
    expect(f.calls('queue.nack').map((r) => [r.status, r.dropped])).toEqual([
      [200, 'after'],
      [200, undefined],
    ]);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(5_000);
    const again = await queue.receive({ maxMessages: 10 });
    expect(again.map((d) => [d.envelope.event_id, d.receiveCount])).toEqual([[input.envelope.event_id, 2]]);
    await again[0]!.ack();
    expect(f.sim.queueState('orders')?.total).toBe(0);
  });

  it('dropped consume (the messages were leased, the answer lost): the retry gets nothing until the lease lapses, then they come back', async () => {
    const { f, queue } = await recorded();
    const clock = f.sim.clock as VirtualClock;
    const input = event();
    await queue.publish(input);
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.consume' });
    // Not an idempotent call: the leased messages are invisible for the lease, then redelivered.
    expect(await queue.receive({ leaseSeconds: 10 })).toEqual([]);
    await clock.advance(10_000);
    const [delivery] = await queue.receive();
    expect(delivery?.envelope.event_id).toBe(input.envelope.event_id);
    expect(delivery?.receiveCount).toBe(2);
  });
});
