import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_CAPABILITIES } from '../src/discovery/discovery-format';
import { type InfraiSimulator, startInfraiSimulator } from '../src/testing';
import { callCapability } from '../src/testing/raw-client';

interface Delivered {
  message_id: string;
  receipt_handle: string;
  payload: Record<string, unknown>;
  delivery_count: number;
  enqueued_at: string;
}
interface Listed {
  name: string;
  stats: Record<string, number | null>;
  [setting: string]: unknown;
}

let clock: VirtualClock;
let sim: InfraiSimulator;
beforeEach(async () => {
  clock = new VirtualClock();
  sim = await startInfraiSimulator({ clock });
});
afterEach(async () => {
  await sim.close();
});

async function ok<T>(capability: string, params: Record<string, unknown>): Promise<T> {
  const answer = await callCapability(sim, capability, params);
  expect(answer.envelope.error, capability).toBeNull();
  return answer.envelope.data as T;
}
async function refused(capability: string, params: Record<string, unknown>) {
  const answer = await callCapability(sim, capability, params);
  expect(answer.envelope.ok, capability).toBe(false);
  return { status: answer.status, ...answer.envelope.error };
}
let keys = 0;
const create = (name: string, settings: Record<string, unknown> = {}) =>
  ok<{ queue: Listed }>('queue.create', { name, idempotency_key: `k${keys++}`, ...settings });
const publish = (queue: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ok<{ message_id: string }>('queue.publish', { queue, payload, ...extra });
const consume = async (queue: string, extra: Record<string, unknown> = {}) =>
  (await ok<{ messages: Delivered[] }>('queue.consume', { queue, ...extra })).messages;
const listed = async (name: string) =>
  (await ok<{ queues: Listed[] }>('queue.list', {})).queues.find((q) => q.name === name);

describe('creating, listing and deleting queues', () => {
  it('creates a queue with the documented defaults and lists it with its counts', async () => {
    const { queue } = await create('orders');
    expect(queue).toEqual({
      name: 'orders',
      type: 'standard',
      dead_letter_queue: null,
      max_retries: 5,
      message_retention_days: 14,
      visibility_timeout_default: 30,
      enable_priority: false,
      created_at: new Date(clock.now()).toISOString(),
      stats: {
        available: 0,
        in_flight: 0,
        delayed: 0,
        dead_letters: null,
        oldest_available_age_seconds: null,
      },
    });
    expect(await listed('orders')).toEqual(queue);
  });

  it('keeps the settings it was given', async () => {
    await create('dlq');
    const { queue } = await create('jobs', {
      type: 'fifo',
      dead_letter_queue: 'dlq',
      max_retries: 2,
      message_retention_days: 30,
      visibility_timeout_default: 120,
      enable_priority: true,
    });
    expect(queue).toMatchObject({
      type: 'fifo',
      dead_letter_queue: 'dlq',
      max_retries: 2,
      message_retention_days: 30,
      visibility_timeout_default: 120,
      enable_priority: true,
      stats: { dead_letters: 0 },
    });
  });

  it('refuses a taken name (409) and a dead-letter queue that does not exist (400)', async () => {
    await create('orders');
    expect(await refused('queue.create', { name: 'orders', idempotency_key: 'other' })).toMatchObject({
      status: 409,
      code: 'QUEUE_ALREADY_EXISTS',
      retryable: false,
    });
    expect(
      await refused('queue.create', { name: 'jobs', idempotency_key: 'j', dead_letter_queue: 'nowhere' }),
    ).toMatchObject({ status: 400, code: 'DEAD_LETTER_QUEUE_NOT_FOUND', retryable: false });
    expect(sim.queueState('jobs')).toBeUndefined();
  });

  it('deletes a queue and its messages; every call on a missing queue is 404 QUEUE_NOT_FOUND', async () => {
    await create('orders');
    await publish('orders', { n: 1 });
    expect(await ok('queue.delete', { queue: 'orders' })).toEqual({ deleted: true });
    expect(sim.queueState('orders')).toBeUndefined();
    const calls: [string, Record<string, unknown>][] = [
      ['queue.delete', { queue: 'orders' }],
      ['queue.publish', { queue: 'orders', payload: {} }],
      ['queue.publish_batch', { queue: 'orders', messages: [{ payload: {} }] }],
      ['queue.consume', { queue: 'orders' }],
      ['queue.ack', { queue: 'orders', receipt_handle: 'h' }],
      ['queue.nack', { queue: 'orders', receipt_handle: 'h' }],
      ['queue.dlq.list', { queue: 'orders' }],
      ['queue.dlq.redrive', { queue: 'orders' }],
    ];
    for (const [capability, params] of calls) {
      expect(await refused(capability, params), capability).toMatchObject({
        status: 404,
        code: 'QUEUE_NOT_FOUND',
      });
    }
  });
});

describe('publishing and consuming', () => {
  it('delivers a message once with a receipt handle, delivery_count 1 and enqueued_at; ack deletes it', async () => {
    await create('orders');
    const { message_id } = await publish('orders', { order: 7 });
    const [message, ...rest] = await consume('orders');
    expect(rest).toEqual([]);
    expect(message).toEqual({
      message_id,
      receipt_handle: expect.any(String),
      payload: { order: 7 },
      delivery_count: 1,
      enqueued_at: new Date(clock.now()).toISOString(),
    });
    expect(await consume('orders')).toEqual([]);
    expect(sim.queueState('orders')).toMatchObject({ available: 0, inFlight: 1 });
    expect(await ok('queue.ack', { queue: 'orders', receipt_handle: message?.receipt_handle })).toEqual({
      acknowledged: true,
    });
    expect(sim.queueState('orders')?.total).toBe(0);
  });

  it('returns up to max_messages, oldest first', async () => {
    await create('orders');
    for (let n = 0; n < 5; n++) {
      await publish('orders', { n });
      await clock.advance(1);
    }
    expect((await consume('orders', { max_messages: 3 })).map((m) => m.payload.n)).toEqual([0, 1, 2]);
    expect((await consume('orders', { max_messages: 10 })).map((m) => m.payload.n)).toEqual([3, 4]);
  });

  it('hides a delivery for the visibility timeout, then delivers it again under a new handle', async () => {
    await create('orders', { visibility_timeout_default: 60 });
    await publish('orders', {});
    const [first] = await consume('orders');
    await clock.advance(59_999);
    expect(await consume('orders')).toEqual([]);
    await clock.advance(1);
    const [second] = await consume('orders', { visibility_timeout: 5 });
    expect(second?.delivery_count).toBe(2);
    expect(second?.receipt_handle).not.toBe(first?.receipt_handle);
    await clock.advance(4_999);
    expect(await consume('orders')).toEqual([]);
    await clock.advance(1);
    expect((await consume('orders'))[0]?.delivery_count).toBe(3);
  });

  it('refuses a handle that is no longer current (409 RECEIPT_HANDLE_INVALID), accepts a lapsed one nobody took', async () => {
    await create('orders', { visibility_timeout_default: 10 });
    await publish('orders', {});
    const [first] = await consume('orders');
    await clock.advance(10_000);
    const [second] = await consume('orders');
    for (const capability of ['queue.ack', 'queue.nack']) {
      expect(
        await refused(capability, { queue: 'orders', receipt_handle: first?.receipt_handle }),
      ).toMatchObject({
        status: 409,
        code: 'RECEIPT_HANDLE_INVALID',
        retryable: false,
      });
    }
    await clock.advance(60_000);
    expect(await ok('queue.ack', { queue: 'orders', receipt_handle: second?.receipt_handle })).toEqual({
      acknowledged: true,
    });
    expect(
      await refused('queue.ack', { queue: 'orders', receipt_handle: second?.receipt_handle }),
    ).toMatchObject({
      code: 'RECEIPT_HANDLE_INVALID',
    });
    expect(await refused('queue.ack', { queue: 'orders', receipt_handle: 'made-up' })).toMatchObject({
      status: 409,
    });
  });

  it('refuses a handle from another queue', async () => {
    await create('a');
    await create('b');
    await publish('a', {});
    const [message] = await consume('a');
    expect(await refused('queue.ack', { queue: 'b', receipt_handle: message?.receipt_handle })).toMatchObject(
      {
        code: 'RECEIPT_HANDLE_INVALID',
      },
    );
  });

  it('holds a delayed message until its delay has passed', async () => {
    await create('orders');
    await publish('orders', { late: true }, { delay_seconds: 604_800 });
    await publish('orders', { late: false });
    expect(sim.queueState('orders')).toMatchObject({ available: 1, delayed: 1 });
    const now = await consume('orders', { max_messages: 10 });
    expect(now.map((m) => m.payload.late)).toEqual([false]);
    await ok('queue.ack', { queue: 'orders', receipt_handle: now[0]?.receipt_handle });
    await clock.advance(604_800_000 - 1);
    expect(await consume('orders')).toEqual([]);
    await clock.advance(1);
    expect((await consume('orders'))[0]?.payload).toEqual({ late: true });
  });

  it('nack makes a message visible again after its delay, without the handle going stale', async () => {
    await create('orders');
    await publish('orders', {});
    const [first] = await consume('orders');
    expect(
      await ok('queue.nack', { queue: 'orders', receipt_handle: first?.receipt_handle, delay_seconds: 30 }),
    ).toEqual({ requeued: true, dead_lettered: false });
    expect(sim.queueState('orders')).toMatchObject({ delayed: 1, inFlight: 0 });
    await clock.advance(29_999);
    expect(await consume('orders')).toEqual([]);
    await clock.advance(1);
    const [again] = await consume('orders');
    expect(again?.delivery_count).toBe(2);
    await ok('queue.nack', { queue: 'orders', receipt_handle: again?.receipt_handle });
    expect((await consume('orders'))[0]?.delivery_count).toBe(3);
  });

  it('orders a priority queue by priority, then age; a queue without priority by age only', async () => {
    await create('ranked', { enable_priority: true });
    await create('plain');
    for (const [n, priority] of [
      [0, 1],
      [1, 9],
      [2, 1],
      [3, 5],
    ] as const) {
      await publish('ranked', { n }, { priority });
      await publish('plain', { n }, { priority });
    }
    const ranked = await consume('ranked', { max_messages: 10 });
    expect(ranked.map((m) => m.payload.n)).toEqual([1, 3, 0, 2]);
    const plain = await consume('plain', { max_messages: 10 });
    expect(plain.map((m) => m.payload.n)).toEqual([0, 1, 2, 3]);
  });

  it('delivers a fifo queue strictly in publish order, holding later messages behind a hidden one', async () => {
    await create('fifo', { type: 'fifo', enable_priority: true, visibility_timeout_default: 10 });
    for (let n = 0; n < 3; n++) await publish('fifo', { n }, { priority: n * 4 });
    const [head] = await consume('fifo');
    expect(head?.payload.n).toBe(0);
    expect(await consume('fifo', { max_messages: 10 })).toEqual([]);
    await ok('queue.nack', { queue: 'fifo', receipt_handle: head?.receipt_handle, delay_seconds: 5 });
    expect(await consume('fifo')).toEqual([]);
    await clock.advance(5_000);
    const [retried] = await consume('fifo');
    expect(retried).toMatchObject({ payload: { n: 0 }, delivery_count: 2 });
    await ok('queue.ack', { queue: 'fifo', receipt_handle: retried?.receipt_handle });
    expect((await consume('fifo', { max_messages: 10 })).map((m) => m.payload.n)).toEqual([1, 2]);
  });

  it('holds a fifo queue behind a message published with a delay, as strict order requires', async () => {
    await create('fifo', { type: 'fifo' });
    await publish('fifo', { n: 0 }, { delay_seconds: 10 });
    await publish('fifo', { n: 1 });
    expect(await consume('fifo', { max_messages: 10 })).toEqual([]);
    await clock.advance(10_000);
    expect((await consume('fifo', { max_messages: 10 })).map((m) => m.payload.n)).toEqual([0, 1]);
  });

  it('forgets a message past message_retention_days', async () => {
    await create('short', { message_retention_days: 1 });
    await publish('short', { n: 1 });
    await clock.advance(86_400_000 - 1);
    expect(sim.queueState('short')?.available).toBe(1);
    const [message] = await consume('short');
    await clock.advance(1);
    expect(sim.queueState('short')?.total).toBe(0);
    expect(await consume('short')).toEqual([]);
    expect(
      await refused('queue.ack', { queue: 'short', receipt_handle: message?.receipt_handle }),
    ).toMatchObject({
      code: 'RECEIPT_HANDLE_INVALID',
    });
  });

  it('refuses a payload over 262,144 bytes of canonical JSON with 413 PAYLOAD_TOO_LARGE', async () => {
    await create('orders');
    const overhead = Buffer.byteLength('{"s":""}');
    const atLimit = { s: 'é'.repeat((262_144 - overhead) / 2) };
    await publish('orders', atLimit);
    const over = { s: `${atLimit.s}x` };
    expect(await refused('queue.publish', { queue: 'orders', payload: over })).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      retryable: false,
    });
    expect(sim.queueState('orders')?.total).toBe(1);
  });

  it('publishes a batch with one result each, an oversized entry failing alone', async () => {
    await create('orders');
    const big = { s: 'x'.repeat(262_144) };
    const { results } = await ok<{ results: { ok: boolean; message_id?: string; error?: unknown }[] }>(
      'queue.publish_batch',
      {
        queue: 'orders',
        messages: [{ payload: { n: 0 } }, { payload: big }, { payload: { n: 2 }, delay_seconds: 5 }],
      },
    );
    expect(results).toEqual([
      { ok: true, message_id: expect.any(String) },
      {
        ok: false,
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: expect.any(String),
          hint: expect.any(String),
          retryable: false,
        },
      },
      { ok: true, message_id: expect.any(String) },
    ]);
    expect(sim.queueState('orders')).toMatchObject({ available: 1, delayed: 1 });
  });

  it('lists stats: available, in_flight, delayed and the oldest available message’s age', async () => {
    await create('orders');
    await publish('orders', { n: 0 });
    await clock.advance(2_500);
    await publish('orders', { n: 1 });
    await publish('orders', { n: 2 }, { delay_seconds: 60 });
    await consume('orders');
    expect((await listed('orders'))?.stats).toEqual({
      available: 1,
      in_flight: 1,
      delayed: 1,
      dead_letters: null,
      oldest_available_age_seconds: 0,
    });
    await clock.advance(1_500);
    expect((await listed('orders'))?.stats.oldest_available_age_seconds).toBe(1.5);
    expect(sim.queueState('orders')).toEqual({
      available: 1,
      inFlight: 1,
      delayed: 1,
      deadLetters: null,
      total: 3,
    });
  });
});

it('answers every queue capability with data its response schema allows', async () => {
  // callCapability checks each successful answer's data against the snapshot's response schema.
  await create('flow-dlq');
  await create('flow', { dead_letter_queue: 'flow-dlq', max_retries: 0 });
  await publish('flow', { n: 1 }, { idempotency_key: 'p1', priority: 3, delay_seconds: 0 });
  await ok('queue.publish_batch', {
    queue: 'flow',
    messages: [{ payload: { n: 2 }, idempotency_key: 'b1' }],
  });
  const [one, two] = await consume('flow', { max_messages: 2, visibility_timeout: 30 });
  await ok('queue.ack', { queue: 'flow', receipt_handle: one?.receipt_handle });
  await ok('queue.nack', { queue: 'flow', receipt_handle: two?.receipt_handle });
  await ok('queue.list', {});
  await ok('queue.dlq.list', { queue: 'flow', max_messages: 10 });
  await ok('queue.dlq.redrive', { queue: 'flow', max_messages: 10 });
  await ok('queue.delete', { queue: 'flow' });
  const answered = new Set(
    sim
      .requests()
      .filter((r) => r.status === 200)
      .map((r) => r.capability),
  );
  expect([...answered].sort()).toEqual([...QUEUE_CAPABILITIES].sort());
});
