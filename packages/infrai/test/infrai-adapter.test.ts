import {
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  Queue,
  type QueueError,
} from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createInfraiAdapter, DEFAULT_DEDUPE_WINDOW_SECONDS, infraiAdapter } from '../src';
import { PAYLOAD_WRAPPER_BYTES } from '../src/message-payload';
import { callCapability } from '../src/testing/raw-client';
import { event, type Fixture, type FixtureOptions, rawCreate, startFixture } from './support/infrai-fixture';
import { failure } from './support/secret-scan';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function started(options: FixtureOptions = {}): Promise<Fixture> {
  fixture = await startFixture({
    simulator: { clock: new VirtualClock(), ...options.simulator },
    ...options,
  });
  return fixture;
}

const httpCalls = (f: Fixture) => f.sim.requests().filter((r) => r.capability !== 'discovery');

describe('the API key', () => {
  it('comes from context.env[keyEnv] (INFRAI_API_KEY by default, or the variable keyEnv= names)', async () => {
    const f = await started({ simulator: { apiKeys: ['ifr_from_env'] } });
    await rawCreate(f.sim, { name: 'orders' });
    const byDefault = await infraiAdapter.open(f.urlOf('orders'), {
      env: { INFRAI_API_KEY: 'ifr_from_env' },
    });
    expect(byDefault.name).toBe('infrai:orders');
    const named = await createInfraiAdapter().open(f.urlOf('orders', 'keyEnv=ORDERS_KEY'), {
      env: { ORDERS_KEY: 'ifr_from_env', INFRAI_API_KEY: 'ifr_wrong' },
    });
    await new Queue(named).publish(event());
    expect(f.sim.queueState('orders')?.total).toBe(1);
  });

  it('comes from createInfraiAdapter({ apiKey }), which wins over the environment', async () => {
    const f = await started({ simulator: { apiKeys: ['ifr_option'] } });
    await rawCreate(f.sim, { name: 'orders' });
    const driver = await createInfraiAdapter({ apiKey: 'ifr_option' }).open(f.urlOf('orders'), {
      env: { INFRAI_API_KEY: 'ifr_wrong' },
    });
    await new Queue(driver).publish(event());
    expect(f.sim.queueState('orders')?.total).toBe(1);
  });

  it('missing: UNAUTHORIZED naming the variable, before any HTTP call', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'orders' });
    const before = httpCalls(f).length;
    const plain = await failure(() => createInfraiAdapter().open(f.urlOf('orders'), { env: {} }));
    expect(plain).toMatchObject({ code: 'UNAUTHORIZED', retryable: false, details: { field: 'keyEnv' } });
    expect((plain as QueueError).message).toMatch(/set INFRAI_API_KEY or pass apiKey/);
    const named = await failure(() =>
      createInfraiAdapter().open(f.urlOf('orders', 'keyEnv=ORDERS_KEY'), { env: { INFRAI_API_KEY: 'x' } }),
    );
    expect((named as QueueError).message).toMatch(/set ORDERS_KEY \(named by keyEnv=\)/);
    const empty = await failure(() =>
      createInfraiAdapter().open(f.urlOf('orders'), { env: { INFRAI_API_KEY: '' } }),
    );
    expect(empty).toMatchObject({ code: 'UNAUTHORIZED' });
    const admin = await failure(() => createInfraiAdapter().admin!(f.provider, { env: {} }));
    expect(admin).toMatchObject({ code: 'UNAUTHORIZED', details: { field: 'keyEnv' } });
    expect(httpCalls(f).length).toBe(before);
  });

  it('wrong: UNAUTHORIZED from Infrai’s 401, not retried', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'orders' });
    const error = await failure(() =>
      createInfraiAdapter({ apiKey: 'ifr_wrong' }).open(f.urlOf('orders'), {}),
    );
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      retryable: false,
      details: { infraiCode: 'UNAUTHORIZED', httpStatus: 401 },
    });
    expect((error as QueueError).message).toMatch(/^infrai:orders queue\.list: the API key is not known/);
    expect(f.calls('queue.list').map((r) => r.status)).toEqual([401]);
  });
});

describe('opening a queue', () => {
  it('a queue Infrai does not have: NOT_FOUND, by name', async () => {
    const f = await started();
    const error = await failure(() => f.adapter.open(f.urlOf('nope'), {}));
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'infrai:nope: Infrai has no queue named nope',
    });
  });

  it('a URL that names no queue is refused, before any HTTP call', async () => {
    const f = await started();
    const error = await failure(() => f.adapter.open(f.provider, {}));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'queueName' } });
    expect(httpCalls(f)).toEqual([]);
  });

  it('an unknown region is refused plainly, naming the regions offered, before any HTTP call', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'orders' });
    const before = httpCalls(f).length;
    const error = await failure(() => f.adapter.open(f.urlOf('orders', 'region=ap-south'), {}));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'region', offered: ['eu-west', 'us-east'] },
    });
    expect((error as QueueError).message).toMatch(
      /does not offer queue\.\S+ in region "ap-south"; it offers it in: eu-west, us-east/,
    );
    expect(httpCalls(f).length).toBe(before);
    // A region the snapshot offers opens.
    const driver = await f.adapter.open(f.urlOf('orders', 'region=eu-west'), {});
    expect(driver.name).toBe('infrai:orders');
  });

  it('a 5xx while opening is UNAVAILABLE and retryable (open itself does not retry)', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'orders' });
    f.sim.faults.inject({ kind: 'status', status: 503, capability: 'queue.list' });
    expect(await failure(() => f.adapter.open(f.urlOf('orders'), {}))).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
    });
  });
});

describe('the manifest', () => {
  async function capabilitiesOf(f: Fixture, name: string, extra?: string) {
    return (await f.adapter.open(f.urlOf(name, extra), {})).capabilities;
  }

  it('a standard queue without dead letters', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'plain', max_retries: 7 });
    expect(await capabilitiesOf(f, 'plain')).toEqual({
      maxBodyBytes: MAX_BODY_BYTES - PAYLOAD_WRAPPER_BYTES,
      delay: { maxSeconds: MAX_DELAY_SECONDS, nativeMaxSeconds: MAX_DELAY_SECONDS, fractional: false },
      dedupe: { kind: 'window', windowSeconds: DEFAULT_DEDUPE_WINDOW_SECONDS },
      ordering: 'none',
      leaseExtension: false,
      leaseSeconds: { min: 1, max: 43_200 },
      longPollMaxSeconds: 0,
      receiveCount: true,
      retentionSeconds: 14 * 86_400,
      batch: { publish: 10, receive: 10, settle: 10 },
      staleReceipt: 'ignored',
      deadLetter: { move: false, redriveAfterReceives: null },
    });
  });

  it('a FIFO queue keeps order for one consumer', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'ordered', type: 'fifo' });
    expect((await capabilitiesOf(f, 'ordered')).ordering).toBe('fifo-single-consumer');
  });

  it('with a dead-letter queue: redriveAfterReceives = max_retries + 1', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'dead' });
    await rawCreate(f.sim, { name: 'work', dead_letter_queue: 'dead', max_retries: 4 });
    await rawCreate(f.sim, { name: 'strict', dead_letter_queue: 'dead', max_retries: 0 });
    expect((await capabilitiesOf(f, 'work')).deadLetter).toEqual({ move: false, redriveAfterReceives: 5 });
    expect((await capabilitiesOf(f, 'strict')).deadLetter).toEqual({ move: false, redriveAfterReceives: 1 });
    // Through the admin: redriveAfterReceives 3 is max_retries 2 on Infrai.
    await f.admin.createQueue({ name: 'admin-made', redriveAfterReceives: 3, settings: { fifo: true } });
    const listed = await callCapability(f.sim, 'queue.list', {});
    const made = (listed.envelope.data as { queues: Array<Record<string, unknown>> }).queues.find(
      (q) => q.name === 'admin-made',
    );
    expect(made).toMatchObject({ type: 'fifo', dead_letter_queue: 'admin-made-dlq', max_retries: 2 });
    const caps = await capabilitiesOf(f, 'admin-made');
    expect(caps.deadLetter).toEqual({ move: false, redriveAfterReceives: 3 });
    expect(caps.ordering).toBe('fifo-single-consumer');
  });

  it('retention follows the queue; the dedupe window follows dedupeWindowSeconds=', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'short', message_retention_days: 3 });
    const caps = await capabilitiesOf(f, 'short', 'dedupeWindowSeconds=600');
    expect(caps.retentionSeconds).toBe(3 * 86_400);
    expect(caps.dedupe).toEqual({ kind: 'window', windowSeconds: 600 });
  });

  it('the Queue accepts it, and enforces it: 10 per receive, whole-second delays, leases up to 12 h', async () => {
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    expect(queue.bridgesDelays).toBe(false);
    // Past the manifest's 10 a receive is capped by the Queue, not refused (the simulator would
    // refuse max_messages 11 with a VALIDATION_ERROR).
    expect(await queue.receive({ maxMessages: 11 })).toEqual([]);
    await expect(queue.receive({ leaseSeconds: 43_201 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(queue.publish({ ...event(), delaySeconds: 1.5 })).rejects.toMatchObject({
      code: 'DELAY_OUT_OF_RANGE',
    });
    await queue.publish({ ...event(), delaySeconds: MAX_DELAY_SECONDS });
    expect(f.sim.queueState('orders')).toMatchObject({ delayed: 1 });
  });
});

describe('the admin', () => {
  it('createQueue returns the URL that opens it, with the provider’s options; refuses unknown settings', async () => {
    const f = await started();
    const url = await f.admin.createQueue({
      name: 'orders',
      settings: { retentionDays: 2, visibilityTimeoutSeconds: 45, enablePriority: true },
    });
    expect(url).toBe(f.urlOf('orders').href);
    const listed = await callCapability(f.sim, 'queue.list', {});
    expect((listed.envelope.data as { queues: unknown[] }).queues).toMatchObject([
      { name: 'orders-dlq', dead_letter_queue: null, message_retention_days: 2 },
      {
        name: 'orders',
        type: 'standard',
        // No redriveAfterReceives: core's default, the same on every admin (20 deliveries).
        dead_letter_queue: 'orders-dlq',
        max_retries: DEFAULT_REDRIVE_AFTER_RECEIVES - 1,
        message_retention_days: 2,
        visibility_timeout_default: 45,
        enable_priority: true,
      },
    ]);
    expect(await failure(() => f.admin.createQueue({ name: 'x', settings: { shards: 3 } }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'shards' },
    });
    expect(await failure(() => f.admin.createQueue({ name: 'x', redriveAfterReceives: 0 }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'redriveAfterReceives' },
    });
    expect(await failure(() => f.admin.createQueue({ name: 'x', redriveAfterReceives: 1002 }))).toMatchObject(
      {
        code: 'INVALID_ARGUMENT',
        details: { field: 'max_retries' },
      },
    );
    expect(await failure(() => f.admin.createQueue({ name: 'orders' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'name' },
    });
    // None of the refused ones made anything.
    expect(f.sim.queueState('x')).toBeUndefined();
    expect(f.sim.queueState('x-dlq')).toBeUndefined();
  });

  it('a queue made without redriveAfterReceives dead-letters after DEFAULT_REDRIVE_AFTER_RECEIVES deliveries, not before', async () => {
    const f = await started();
    const driver = await f.adapter.open(new URL(await f.admin.createQueue({ name: 'orders' })), {});
    expect(driver.capabilities.deadLetter.redriveAfterReceives).toBe(DEFAULT_REDRIVE_AFTER_RECEIVES);
    await driver.close();
  });

  it('deleteQueue takes the -dlq it made with it, and leaves a shared dead-letter queue alone', async () => {
    const f = await started();
    const url = await f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 });
    expect(f.sim.queueState('orders-dlq')).toBeDefined();
    await f.admin.deleteQueue(url);
    expect(f.sim.queueState('orders')).toBeUndefined();
    expect(f.sim.queueState('orders-dlq')).toBeUndefined();

    await rawCreate(f.sim, { name: 'shared-dead' });
    await rawCreate(f.sim, { name: 'a', dead_letter_queue: 'shared-dead' });
    await f.admin.deleteQueue(f.urlOf('a').href);
    expect(f.sim.queueState('shared-dead')).toBeDefined();

    expect(await failure(() => f.admin.deleteQueue(f.urlOf('a').href))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stats, listDeadLetters and redrive over a queue whose messages were dead-lettered', async () => {
    const f = await started();
    const clock = f.sim.clock as VirtualClock;
    const url = await f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 });
    const queue = await f.open('orders');
    expect(await f.admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 0 });

    const poison = event('poison-1');
    await queue.publish({ ...poison, attributes: { tenant: 'acme' } });
    await queue.publish(event('fine-1'));
    await clock.advance(5_000);
    expect(await f.admin.stats(url)).toEqual({ depth: 2, oldestReadyAgeSeconds: 5, deadLetters: 0 });

    // Two deliveries of the poison message, released each time; the third receive dead-letters it.
    for (let i = 0; i < 2; i++) {
      const deliveries = await queue.receive({ maxMessages: 10 });
      for (const d of deliveries) {
        if (d.envelope.event_id === 'poison-1') await d.release();
        else await d.ack();
      }
    }
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    expect(await f.admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 1 });

    const [record, ...rest] = await f.admin.listDeadLetters!(url, { limit: 10 });
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      eventId: 'poison-1',
      attributes: { tenant: 'acme' },
      receiveCount: 2,
      reason: 'nacked past max_retries',
      at: clock.now(),
    });
    expect(JSON.parse(record!.body)).toMatchObject({ event_id: 'poison-1', type: 'test.event' });

    expect(await f.admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
    expect(await f.admin.stats(url)).toMatchObject({ depth: 1, deadLetters: 0 });
    const [back] = await queue.receive();
    expect(back?.envelope.event_id).toBe('poison-1');
    expect(back?.receiveCount).toBe(1);
    expect(back?.attributes).toEqual({ tenant: 'acme' });
  });

  it('redriveDeadLetters and listDeadLetters with limit 0 act on nothing', async () => {
    // Both clamp the limit to at least 1 (Math.max(1, …)): "up to 0" moves one message back.
    const f = await started();
    const clock = f.sim.clock as VirtualClock;
    const url = await f.admin.createQueue({ name: 'orders', redriveAfterReceives: 1 });
    const queue = await f.open('orders');
    await queue.publishBatch([event(), event()]);
    await queue.receive({ maxMessages: 10, leaseSeconds: 1 });
    await clock.advance(1_000);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    expect(f.sim.queueState('orders')?.deadLetters).toBe(2);
    expect({
      listed: (await f.admin.listDeadLetters!(url, { limit: 0 })).length,
      redriven: await f.admin.redriveDeadLetters!(url, { limit: 0 }),
    }).toEqual({ listed: 0, redriven: 0 });
  });

  it('names queues by their infrai:// URL on its own host only', async () => {
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    expect(await failure(() => f.admin.stats('infrai://elsewhere.example/orders'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'url' },
    });
    expect(await failure(() => f.admin.stats(f.provider.href))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await failure(() => f.admin.stats('not a url'))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await failure(() => f.admin.stats(f.urlOf('missing').href))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('createQueue with redriveAfterReceives removes its -dlq again when the queue’s own create fails, so a retry starts clean', async () => {
    // The -dlq is created first. Here the account's last credit pays for it and the queue's own
    // create is refused (402); once credit is added, createQueue of the same name fails on the
    // leftover -dlq (QUEUE_ALREADY_EXISTS) and keeps failing until someone deletes it by hand.
    const f = await started();
    f.sim.setCredit(1);
    await expect(f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 })).rejects.toMatchObject({
      details: { infraiCode: 'INSUFFICIENT_CREDIT' },
    });
    f.sim.setCredit(undefined);
    const retried = await f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 }).then(
      (url) => url,
      (error: QueueError) => `failed: ${error.message}`,
    );
    expect(retried).toBe(f.urlOf('orders').href);
    expect(f.sim.queueState('orders')).toBeDefined();
  });

  it('refuses up front a name too long to carry its -dlq beside it, saying how long it may be, and makes nothing', async () => {
    const f = await started();
    const name = `q${'x'.repeat(79)}`;
    await expect(f.admin.createQueue({ name, redriveAfterReceives: 2 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('at most 76 characters'),
      details: { field: 'name' },
    });
    expect(f.sim.queueState(name)).toBeUndefined();
    // Every queue the admin makes has dead letters, the default redrive included.
    await expect(f.admin.createQueue({ name })).rejects.toMatchObject({ details: { field: 'name' } });
    expect(await f.admin.createQueue({ name: name.slice(0, 76) })).toBe(f.urlOf(name.slice(0, 76)).href);
  });

  it('createQueue with redriveAfterReceives on a name that exists is refused before anything is made', async () => {
    const f = await started();
    await callCapability(f.sim, 'queue.create', { name: 'orders', idempotency_key: 'made-elsewhere' });
    await expect(f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'name' },
    });
    expect(f.sim.queueState('orders-dlq')).toBeUndefined();
  });
});

describe('a payload that is not queueport’s', () => {
  it('is refused by the Queue (invalid-message) and never reaches a handler', async () => {
    const f = await started();
    const clock = f.sim.clock as VirtualClock;
    const url = await f.admin.createQueue({ name: 'orders', redriveAfterReceives: 2 });
    const queue = await f.open('orders');
    const invalid: Array<{ messageId: string; receiveCount: number; code: string; deadLetter: boolean }> = [];
    queue.on('invalid-message', (info) =>
      invalid.push({ ...info, code: info.error.code, deadLetter: info.deadLetter }),
    );
    const raw = await callCapability(f.sim, 'queue.publish', {
      queue: 'orders',
      payload: { hello: 'world' },
    });
    const rawId = (raw.envelope.data as { message_id: string }).message_id;
    // Also a payload that claims to be queueport's but carries no envelope.
    await callCapability(f.sim, 'queue.publish', { queue: 'orders', payload: { queueport: 1 } });
    await queue.publish(event('real-1'));

    const first = await queue.receive({ maxMessages: 10, leaseSeconds: 5 });
    expect(first.map((d) => d.envelope.event_id)).toEqual(['real-1']);
    await first[0]!.ack();
    expect(invalid.map((i) => [i.code, i.deadLetter])).toEqual([
      ['INVALID_ENVELOPE', false],
      ['INVALID_ENVELOPE', false],
    ]);
    expect(invalid[0]!.messageId).toBe(rawId);

    // Left to its lease (Infrai has no "move now"): it comes back, is refused again, and after
    // redriveAfterReceives deliveries Infrai moves it to the dead letters.
    await clock.advance(5_000);
    expect(await queue.receive({ maxMessages: 10, leaseSeconds: 5 })).toEqual([]);
    await clock.advance(5_000);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    expect(invalid.map((i) => i.receiveCount)).toEqual([1, 1, 2, 2]);
    const dead = await f.admin.listDeadLetters!(url, { limit: 10 });
    expect(dead.map((d) => d.eventId)).toEqual([undefined, undefined]);
    expect(dead.map((d) => JSON.parse(d.body))).toEqual([{ hello: 'world' }, { queueport: 1 }]);
  });

  it('a consumer never calls its handler for it', async () => {
    fixture = await startFixture();
    const f = fixture;
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders', { logger: { warn: () => {} } });
    await callCapability(f.sim, 'queue.publish', { queue: 'orders', payload: { hello: 'world' } });
    await queue.publish(event('real-2'));
    const handled: string[] = [];
    let refused = 0;
    queue.on('invalid-message', () => {
      refused++;
    });
    const consumer = queue.consume(async (delivery) => {
      handled.push(delivery.envelope.event_id);
    });
    const deadline = Date.now() + 2000;
    while ((handled.length < 1 || refused < 1) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    await consumer.close();
    expect(handled).toEqual(['real-2']);
    expect(refused).toBe(1);
    expect(consumer.stats.received).toBe(1);
  });
});
