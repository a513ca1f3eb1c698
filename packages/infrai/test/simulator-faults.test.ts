import { VirtualClock } from '@queueport/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InfraiSimulator, startInfraiSimulator } from '../src/testing';
import { callCapability, rawRequest } from '../src/testing/raw-client';

let sim: InfraiSimulator;
beforeEach(async () => {
  sim = await startInfraiSimulator({ clock: new VirtualClock() });
  await callCapability(sim, 'queue.create', { name: 'orders', idempotency_key: 'c' });
});
afterEach(async () => {
  await sim.close();
});

const publish = (params: Record<string, unknown> = {}) =>
  callCapability(sim, 'queue.publish', { queue: 'orders', payload: { n: 1 }, ...params });
const discovery = () => rawRequest(sim, { method: 'GET', path: '/v1/discovery', apiKey: null });

describe('status faults', () => {
  it('answers a burst of 503 SERVICE_UNAVAILABLE, retryable, then recovers, with nothing committed', async () => {
    sim.faults.inject({ kind: 'status', status: 503, count: 2, capability: 'queue.publish' });
    for (let i = 0; i < 2; i++) {
      const answer = await publish();
      expect(answer.status).toBe(503);
      expect(answer.envelope.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    }
    expect(sim.queueState('orders')?.total).toBe(0);
    expect((await publish()).status).toBe(200);
    expect(sim.faults.pending()).toEqual([]);
  });

  it('leaves other capabilities alone when scoped, and hits every queue capability but discovery when not', async () => {
    sim.faults.inject({ kind: 'status', status: 500, capability: 'queue.publish' });
    expect((await callCapability(sim, 'queue.list', {})).status).toBe(200);
    expect((await publish()).envelope.error).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    sim.faults.inject({ kind: 'status', status: 503 });
    expect((await discovery()).status).toBe(200);
    expect((await callCapability(sim, 'queue.list', {})).status).toBe(503);
  });

  it('fails discovery when scoped to it', async () => {
    sim.faults.inject({ kind: 'status', status: 503, capability: 'discovery' });
    expect((await discovery()).status).toBe(503);
    expect((await discovery()).status).toBe(200);
  });

  it('sends Retry-After on an injected 429, and takes a code of the test’s choosing', async () => {
    sim.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const limited = await publish();
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.envelope.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    sim.faults.inject({ kind: 'status', status: 502, code: 'BAD_GATEWAY' });
    const odd = await publish();
    expect(odd.status).toBe(502);
    expect(odd.envelope.error).toMatchObject({ code: 'BAD_GATEWAY', retryable: true });
  });

  it('applies before authentication and is not billed', async () => {
    sim.setCredit(1);
    sim.faults.inject({ kind: 'status', status: 503 });
    expect((await callCapability(sim, 'queue.list', {}, { apiKey: null })).status).toBe(503);
    expect(sim.creditLeft()).toBe(1);
  });

  it('is cleared by faults.clear()', async () => {
    sim.faults.inject({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY });
    expect((await publish()).status).toBe(503);
    sim.faults.clear();
    expect((await publish()).status).toBe(200);
  });
});

describe('dropped connections', () => {
  it('drop-before: the socket closes and nothing is done', async () => {
    sim.faults.inject({ kind: 'drop-before', capability: 'queue.publish' });
    await expect(publish({ idempotency_key: 'k' })).rejects.toThrow();
    expect(sim.queueState('orders')?.total).toBe(0);
    expect(sim.requests().at(-1)).toMatchObject({
      capability: 'queue.publish',
      status: 0,
      dropped: 'before',
    });
    expect((await publish({ idempotency_key: 'k' })).envelope.metadata.cache_hit).toBe(false);
  });

  it('drop-after: the message is committed though no answer came; the keyed retry gets the same message_id', async () => {
    sim.faults.inject({ kind: 'drop-after', capability: 'queue.publish' });
    await expect(publish({ idempotency_key: 'k' })).rejects.toThrow();
    expect(sim.queueState('orders')?.total).toBe(1);
    const logged = sim.requests().at(-1);
    expect(logged).toMatchObject({
      capability: 'queue.publish',
      status: 200,
      dropped: 'after',
      idempotencyKey: 'k',
    });
    const retry = await publish({ idempotency_key: 'k' });
    expect(retry.envelope.metadata.cache_hit).toBe(true);
    expect(sim.queueState('orders')?.total).toBe(1);
    const consumed = await callCapability(sim, 'queue.consume', { queue: 'orders', max_messages: 10 });
    const messages = (consumed.envelope.data as { messages: { message_id: string }[] }).messages;
    expect(messages.map((m) => m.message_id)).toEqual([
      (retry.envelope.data as { message_id: string }).message_id,
    ]);
  });

  it('drop-after without a key: the retry publishes a duplicate, which is why keys exist', async () => {
    sim.faults.inject({ kind: 'drop-after' });
    await expect(publish()).rejects.toThrow();
    await publish();
    expect(sim.queueState('orders')?.total).toBe(2);
  });
});

describe('slow answers', () => {
  it('waits delayMs of real time before processing', async () => {
    sim.faults.inject({ kind: 'slow', delayMs: 120, capability: 'queue.list' });
    const before = performance.now();
    const answer = await callCapability(sim, 'queue.list', {});
    expect(performance.now() - before).toBeGreaterThanOrEqual(110);
    expect(answer.envelope.metadata.latency_ms).toBeGreaterThanOrEqual(110);
    const quick = performance.now();
    await callCapability(sim, 'queue.list', {});
    expect(performance.now() - quick).toBeLessThan(100);
  });

  it('combines with a status fault', async () => {
    sim.faults.inject({ kind: 'slow', delayMs: 50 });
    sim.faults.inject({ kind: 'status', status: 503 });
    const before = performance.now();
    expect((await publish()).status).toBe(503);
    expect(performance.now() - before).toBeGreaterThanOrEqual(45);
  });

  it('lets close() finish without waiting out the delay', async () => {
    sim.faults.inject({ kind: 'slow', delayMs: 60_000 });
    const pending = publish().catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = performance.now();
    await sim.close();
    expect(performance.now() - before).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(Error);
    expect(sim.queueState('orders')?.total).toBe(0);
  });

  it('refuses a fault it cannot apply', () => {
    expect(() => sim.faults.inject({ kind: 'status', status: 200 })).toThrow(RangeError);
    expect(() => sim.faults.inject({ kind: 'drop-after', count: 0 })).toThrow(RangeError);
    expect(() => sim.faults.inject({ kind: 'slow', delayMs: -1 })).toThrow(RangeError);
  });
});
