import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InfraiSimulator, startInfraiSimulator } from '../src/testing';
import { callCapability } from '../src/testing/raw-client';

interface Delivered {
  message_id: string;
  receipt_handle: string;
  payload: Record<string, unknown>;
  delivery_count: number;
}
interface DeadLetter {
  message_id: string;
  payload: Record<string, unknown>;
  delivery_count: number;
  reason: string | null;
  dead_lettered_at: string;
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
let keys = 0;
const create = (name: string, settings: Record<string, unknown> = {}) =>
  ok('queue.create', { name, idempotency_key: `k${keys++}`, ...settings });
const publish = async (queue: string, payload: Record<string, unknown>) =>
  (await ok<{ message_id: string }>('queue.publish', { queue, payload })).message_id;
const consume = async (queue: string, max = 1) =>
  (await ok<{ messages: Delivered[] }>('queue.consume', { queue, max_messages: max, visibility_timeout: 1 }))
    .messages;
const deadLetters = async (queue: string, max?: number) =>
  (await ok<{ messages: DeadLetter[] }>('queue.dlq.list', { queue, ...(max ? { max_messages: max } : {}) }))
    .messages;

async function withDeadLetters(maxRetries: number) {
  await create('jobs-dlq');
  await create('jobs', { dead_letter_queue: 'jobs-dlq', max_retries: maxRetries });
}

describe('dead-lettering', () => {
  it('moves a message that comes up after max_retries + 1 deliveries, instead of delivering it', async () => {
    await withDeadLetters(2);
    const id = await publish('jobs', { n: 1 });
    for (let delivery = 1; delivery <= 3; delivery++) {
      const [message] = await consume('jobs');
      expect(message?.delivery_count).toBe(delivery);
      await clock.advance(1_000);
    }
    expect(await consume('jobs')).toEqual([]);
    expect(sim.queueState('jobs')).toMatchObject({ total: 0, deadLetters: 1 });
    expect(await deadLetters('jobs')).toEqual([
      {
        message_id: id,
        payload: { n: 1 },
        delivery_count: 3,
        reason: 'max_retries exceeded',
        dead_lettered_at: new Date(clock.now()).toISOString(),
      },
    ]);
  });

  it('skips past a moved message to the next one in the same consume', async () => {
    await withDeadLetters(0);
    await publish('jobs', { n: 0 });
    await consume('jobs');
    await clock.advance(1_000);
    await publish('jobs', { n: 1 });
    expect((await consume('jobs')).map((m) => m.payload.n)).toEqual([1]);
  });

  it('dead-letters on a nack once the delivery count reached max_retries + 1', async () => {
    await withDeadLetters(1);
    await publish('jobs', { n: 1 });
    const [first] = await consume('jobs');
    expect(await ok('queue.nack', { queue: 'jobs', receipt_handle: first?.receipt_handle })).toEqual({
      requeued: true,
      dead_lettered: false,
    });
    const [second] = await consume('jobs');
    expect(await ok('queue.nack', { queue: 'jobs', receipt_handle: second?.receipt_handle })).toEqual({
      requeued: false,
      dead_lettered: true,
    });
    expect((await deadLetters('jobs'))[0]).toMatchObject({
      delivery_count: 2,
      reason: 'nacked past max_retries',
    });
    const stats = (await ok<{ queues: { name: string; stats: Record<string, unknown> }[] }>('queue.list', {}))
      .queues;
    expect(stats.find((q) => q.name === 'jobs')?.stats.dead_letters).toBe(1);
    expect(stats.find((q) => q.name === 'jobs-dlq')?.stats).toMatchObject({
      available: 1,
      dead_letters: null,
    });
  });

  it('delivers again, past max_retries, when the queue has no dead-letter queue', async () => {
    await create('plain', { max_retries: 0 });
    await publish('plain', {});
    const [first] = await consume('plain');
    expect(await ok('queue.nack', { queue: 'plain', receipt_handle: first?.receipt_handle })).toEqual({
      requeued: true,
      dead_lettered: false,
    });
    expect((await consume('plain'))[0]?.delivery_count).toBe(2);
    await clock.advance(1_000);
    expect((await consume('plain'))[0]?.delivery_count).toBe(3);
  });

  it('behaves as having none once its dead-letter queue was deleted', async () => {
    await withDeadLetters(0);
    await ok('queue.delete', { queue: 'jobs-dlq' });
    await publish('jobs', {});
    const [first] = await consume('jobs');
    expect(await ok('queue.nack', { queue: 'jobs', receipt_handle: first?.receipt_handle })).toMatchObject({
      requeued: true,
    });
    expect(sim.queueState('jobs')).toMatchObject({ available: 1, deadLetters: null });
  });
});

describe('dlq.list and dlq.redrive', () => {
  async function deadLettered(count: number) {
    await withDeadLetters(0);
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      ids.push(await publish('jobs', { n }));
      const [message] = await consume('jobs');
      await ok('queue.nack', { queue: 'jobs', receipt_handle: message?.receipt_handle });
      await clock.advance(10);
    }
    return ids;
  }

  it('lists the dead letters oldest first, ten unless told', async () => {
    const ids = await deadLettered(12);
    expect((await deadLetters('jobs')).map((m) => m.message_id)).toEqual(ids.slice(0, 10));
    expect((await deadLetters('jobs', 3)).map((m) => m.message_id)).toEqual(ids.slice(0, 3));
    expect((await deadLetters('jobs', 100)).length).toBe(12);
  });

  it('redrives up to max_messages back, visible at once, with delivery_count reset', async () => {
    const ids = await deadLettered(3);
    expect(await ok('queue.dlq.redrive', { queue: 'jobs', max_messages: 2 })).toEqual({ redriven: 2 });
    expect(sim.queueState('jobs')).toMatchObject({ available: 2, deadLetters: 1 });
    const back = await consume('jobs', 10);
    expect(back.map((m) => [m.message_id, m.delivery_count])).toEqual([
      [ids[0], 1],
      [ids[1], 1],
    ]);
    expect(await ok('queue.dlq.redrive', { queue: 'jobs' })).toEqual({ redriven: 1 });
    expect(await ok('queue.dlq.redrive', { queue: 'jobs' })).toEqual({ redriven: 0 });
  });

  it('redrives ten unless told', async () => {
    await deadLettered(11);
    expect(await ok('queue.dlq.redrive', { queue: 'jobs' })).toEqual({ redriven: 10 });
  });

  it('refuses both for a queue without a dead-letter queue: 400 VALIDATION_ERROR', async () => {
    await create('plain');
    for (const capability of ['queue.dlq.list', 'queue.dlq.redrive']) {
      const answer = await callCapability(sim, capability, { queue: 'plain' });
      expect(answer.status).toBe(400);
      expect(answer.envelope.error).toMatchObject({ code: 'VALIDATION_ERROR', retryable: false });
      expect(answer.envelope.error?.message).toContain('no dead-letter queue');
    }
  });

  it('lists a message published straight into the dead-letter queue with no reason', async () => {
    await withDeadLetters(0);
    const id = await publish('jobs-dlq', { direct: true });
    expect(await deadLetters('jobs')).toEqual([
      {
        message_id: id,
        payload: { direct: true },
        delivery_count: 0,
        reason: null,
        dead_lettered_at: new Date(clock.now()).toISOString(),
      },
    ]);
  });

  it('keeps retention counting from the first publish, through dead-lettering', async () => {
    await create('dlq', { message_retention_days: 1 });
    await create('jobs', { dead_letter_queue: 'dlq', max_retries: 0 });
    await publish('jobs', {});
    await clock.advance(86_400_000 - 5_000);
    const [message] = await consume('jobs');
    await ok('queue.nack', { queue: 'jobs', receipt_handle: message?.receipt_handle });
    expect((await deadLetters('jobs')).length).toBe(1);
    await clock.advance(5_000);
    expect(await deadLetters('jobs')).toEqual([]);
  });
});
