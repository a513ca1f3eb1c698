import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InfraiSimulator, startInfraiSimulator } from '../src/testing';
import { callCapability } from '../src/testing/raw-client';

const DAY_MS = 86_400_000;

let clock: VirtualClock;
let sim: InfraiSimulator;
beforeEach(async () => {
  clock = new VirtualClock();
  sim = await startInfraiSimulator({ clock, apiKeys: ['ifr_a', 'ifr_b'] });
  await callCapability(sim, 'queue.create', { name: 'orders', idempotency_key: 'create-orders' });
});
afterEach(async () => {
  await sim.close();
});

const publish = (params: Record<string, unknown>, apiKey?: string) =>
  callCapability(sim, 'queue.publish', { queue: 'orders', ...params }, apiKey ? { apiKey } : {});
const messageId = (answer: Awaited<ReturnType<typeof publish>>) =>
  (answer.envelope.data as { message_id: string }).message_id;

describe('publish', () => {
  it('replays the first answer for a repeated key and request: same message_id, nothing enqueued again', async () => {
    const first = await publish({ payload: { n: 1 }, idempotency_key: 'once' });
    const again = await publish({ payload: { n: 1 }, idempotency_key: 'once' });
    expect(messageId(again)).toBe(messageId(first));
    expect(again.envelope.metadata).toMatchObject({ cache_hit: true, cost_usd: 0 });
    expect(first.envelope.metadata).toMatchObject({ cache_hit: false, cost_usd: 0.00001 });
    expect(again.envelope.metadata.request_id).not.toBe(first.envelope.metadata.request_id);
    expect(sim.queueState('orders')?.total).toBe(1);
    const log = sim.requests().filter((r) => r.capability === 'queue.publish');
    expect(log.map((r) => [r.idempotencyKey, r.replayed ?? false])).toEqual([
      ['once', false],
      ['once', true],
    ]);
  });

  it('replays even after the message was consumed and acknowledged', async () => {
    const first = await publish({ payload: {}, idempotency_key: 'k' });
    const consumed = await callCapability(sim, 'queue.consume', { queue: 'orders' });
    const [message] = (consumed.envelope.data as { messages: { receipt_handle: string }[] }).messages;
    await callCapability(sim, 'queue.ack', { queue: 'orders', receipt_handle: message?.receipt_handle });
    expect(messageId(await publish({ payload: {}, idempotency_key: 'k' }))).toBe(messageId(first));
    expect(sim.queueState('orders')?.total).toBe(0);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the key with a different request', async () => {
    await publish({ payload: { n: 1 }, idempotency_key: 'k' });
    for (const changed of [
      { payload: { n: 2 } },
      { payload: { n: 1 }, delay_seconds: 0 },
      { payload: { n: 1 }, priority: 1 },
    ]) {
      const answer = await publish({ ...changed, idempotency_key: 'k' });
      expect(answer.status).toBe(409);
      expect(answer.envelope.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', retryable: false });
    }
    expect(sim.queueState('orders')?.total).toBe(1);
  });

  it('remembers a key for 24 hours on the clock, then publishes anew', async () => {
    const first = await publish({ payload: {}, idempotency_key: 'k' });
    await clock.advance(DAY_MS - 1);
    expect(messageId(await publish({ payload: {}, idempotency_key: 'k' }))).toBe(messageId(first));
    await clock.advance(1);
    const later = await publish({ payload: {}, idempotency_key: 'k' });
    expect(later.envelope.metadata.cache_hit).toBe(false);
    expect(messageId(later)).not.toBe(messageId(first));
    // The new publish starts a new window: the conflict check follows it, not the first one.
    expect((await publish({ payload: { n: 2 }, idempotency_key: 'k' })).status).toBe(409);
  });

  it('keeps keys apart per API key and per capability', async () => {
    const a = await publish({ payload: {}, idempotency_key: 'k' }, 'ifr_a');
    const b = await publish({ payload: {}, idempotency_key: 'k' }, 'ifr_b');
    expect(messageId(b)).not.toBe(messageId(a));
    const batch = await callCapability(sim, 'queue.publish_batch', {
      queue: 'orders',
      messages: [{ payload: {}, idempotency_key: 'k' }],
    });
    expect((batch.envelope.data as { results: { message_id: string }[] }).results[0]?.message_id).not.toBe(
      messageId(a),
    );
    expect(sim.queueState('orders')?.total).toBe(3);
  });

  it('publishes every time without a key', async () => {
    await publish({ payload: {} });
    await publish({ payload: {} });
    expect(sim.queueState('orders')?.total).toBe(2);
  });

  it('does not remember a refusal: the corrected retry is processed', async () => {
    const missing = await callCapability(sim, 'queue.publish', {
      queue: 'later',
      payload: {},
      idempotency_key: 'k',
    });
    expect(missing.status).toBe(404);
    await callCapability(sim, 'queue.create', { name: 'later', idempotency_key: 'create-later' });
    const retried = await callCapability(sim, 'queue.publish', {
      queue: 'later',
      payload: {},
      idempotency_key: 'k',
    });
    expect(retried.status).toBe(200);
    expect(sim.queueState('later')?.total).toBe(1);
  });
});

describe('publish_batch', () => {
  interface Result {
    ok: boolean;
    message_id?: string;
    error?: { code: string; retryable: boolean };
  }
  const batch = async (messages: Record<string, unknown>[]) => {
    const answer = await callCapability(sim, 'queue.publish_batch', { queue: 'orders', messages });
    expect(answer.status).toBe(200);
    return answer;
  };
  const results = (answer: Awaited<ReturnType<typeof batch>>) =>
    (answer.envelope.data as { results: Result[] }).results;

  it('gives a repeated entry its first result and a conflicting one an error in its slot', async () => {
    const first = results(
      await batch([
        { payload: { n: 0 }, idempotency_key: 'a' },
        { payload: { n: 1 }, idempotency_key: 'b' },
      ]),
    );
    const second = results(
      await batch([
        { payload: { n: 0 }, idempotency_key: 'a' },
        { payload: { n: 9 }, idempotency_key: 'b' },
        { payload: { n: 2 }, idempotency_key: 'c' },
        { payload: { n: 3 } },
      ]),
    );
    expect(second[0]).toEqual({ ok: true, message_id: first[0]?.message_id });
    expect(second[1]).toMatchObject({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT', retryable: false } });
    expect(second[2]?.ok).toBe(true);
    expect(second[3]?.ok).toBe(true);
    expect(sim.queueState('orders')?.total).toBe(4);
    expect(sim.requests().at(-1)?.idempotencyKeys).toEqual(['a', 'b', 'c', undefined]);
  });

  it('counts a batch whose every entry is a replay as a cache hit, billed nothing', async () => {
    const entries = [{ payload: { n: 0 }, idempotency_key: 'a' }];
    expect((await batch(entries)).envelope.metadata.cache_hit).toBe(false);
    expect((await batch(entries)).envelope.metadata).toMatchObject({ cache_hit: true, cost_usd: 0 });
  });

  it('applies a key twice in one batch as a repeat', async () => {
    const [one, two] = results(
      await batch([
        { payload: {}, idempotency_key: 'same' },
        { payload: {}, idempotency_key: 'same' },
      ]),
    );
    expect(two?.message_id).toBe(one?.message_id);
    expect(sim.queueState('orders')?.total).toBe(1);
  });
});

describe('create', () => {
  it('replays a repeated create and refuses the key with another request', async () => {
    const first = await callCapability(sim, 'queue.create', { name: 'jobs', idempotency_key: 'j' });
    await clock.advance(1_000);
    const again = await callCapability(sim, 'queue.create', { name: 'jobs', idempotency_key: 'j' });
    expect(again.status).toBe(200);
    expect(again.envelope.data).toEqual(first.envelope.data);
    expect(again.envelope.metadata.cache_hit).toBe(true);
    const conflict = await callCapability(sim, 'queue.create', {
      name: 'jobs',
      idempotency_key: 'j',
      max_retries: 1,
    });
    expect(conflict.envelope.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    const taken = await callCapability(sim, 'queue.create', { name: 'jobs', idempotency_key: 'other' });
    expect(taken.envelope.error?.code).toBe('QUEUE_ALREADY_EXISTS');
  });
});
