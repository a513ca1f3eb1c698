import { MAX_BODY_BYTES, Queue, type QueueError } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyInfraiFailure, type InfraiCall, InfraiDriver, idempotencyKey } from '../src';
import {
  batchKeys,
  drain,
  event,
  type Fixture,
  type FixtureOptions,
  rawCreate,
  recordingDispatcher,
  startFixture,
  tally,
} from './support/infrai-fixture';
import { failure } from './support/secret-scan';

let fixture: Fixture | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function started(options: FixtureOptions = {}): Promise<Fixture> {
  fixture = await startFixture({
    ...options,
    simulator: { clock: new VirtualClock(), ...options.simulator },
  });
  return fixture;
}

async function withOrders(options: FixtureOptions = {}) {
  const f = await started(options);
  await f.admin.createQueue({ name: 'orders' });
  const driver = await InfraiDriver.open({ baseUrl: f.sim.url, apiKey: f.sim.apiKey, queue: 'orders' });
  return { f, driver };
}

const httpCalls = (f: Fixture) => f.sim.requests().filter((r) => r.capability !== 'discovery');

describe('a request that does not match the snapshot fails locally, by field, with no HTTP request', () => {
  it('a release with a delay past the schema’s maximum (through the driver)', async () => {
    const { f, driver } = await withOrders();
    const before = httpCalls(f).length;
    const [outcome] = await driver.release([{ receipt: 'some.receipt', delaySeconds: 604_801 }]);
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        retryable: false,
        details: { capability: 'queue.nack', field: 'delay_seconds' },
      },
    });
    expect((outcome as { error: QueueError }).error.message).toMatch(/delay_seconds must be <= 604800/);
    expect(httpCalls(f).length).toBe(before);
    expect(f.calls('queue.nack')).toEqual([]);
  });

  it('a receive past the schema’s limits (through the driver)', async () => {
    const { f, driver } = await withOrders();
    const before = httpCalls(f).length;
    expect(
      await failure(() => driver.receive({ maxMessages: 11, leaseSeconds: 30, waitSeconds: 0 })),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'max_messages' },
    });
    expect(
      await failure(() => driver.receive({ maxMessages: 1, leaseSeconds: 43_201, waitSeconds: 0 })),
    ).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'visibility_timeout' } });
    expect(httpCalls(f).length).toBe(before);
  });

  it('a bad queue name: in the URL, and in the admin’s createQueue', async () => {
    const f = await started();
    expect(await failure(() => f.adapter.open(f.urlOf('has%20space'), {}))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'queueName' },
    });
    expect(await failure(() => f.admin.createQueue({ name: 'has space' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { capability: 'queue.create', field: 'name' },
    });
    expect(
      await failure(() => f.admin.createQueue({ name: 'bad/name', redriveAfterReceives: 2 })),
    ).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'name' } });
    expect(httpCalls(f)).toEqual([]);
  });

  it('InfraiDriver.open refuses a queue name Infrai’s schema forbids, by field, before any call', async () => {
    // Expected: INVALID_ARGUMENT naming the queue, with no request (as the URL and createQueue do).
    const f = await started();
    const error = await failure(() =>
      InfraiDriver.open({ baseUrl: f.sim.url, apiKey: f.sim.apiKey, queue: 'no spaces allowed' }),
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(httpCalls(f)).toEqual([]);
  });

  it('an API key is required, and a region must be one the snapshot offers, before any request', async () => {
    const f = await started();
    expect(
      await failure(() => InfraiDriver.open({ baseUrl: f.sim.url, apiKey: '', queue: 'orders' })),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'apiKey' },
    });
    const error = await failure(() =>
      InfraiDriver.open({ baseUrl: f.sim.url, apiKey: f.sim.apiKey, queue: 'orders', region: 'EU-WEST' }),
    );
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'region', offered: ['eu-west', 'us-east'] },
    });
    expect(httpCalls(f)).toEqual([]);
  });
});

describe('payload size, measured on the wire', () => {
  // 50 000 control characters count 50 000 bytes for the Queue, and 300 000 once JSON-escaped.
  const escaping = { a: '\u0001'.repeat(50_000) };

  it('an oversized payload after attribute escaping fails alone with PAYLOAD_TOO_LARGE; the rest of the batch is published', async () => {
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    const inputs = [event(), { ...event(), attributes: escaping }, event()];
    const ids = inputs.map((i) => i.envelope.event_id);

    const error = await failure(() => queue.publishBatch(inputs));

    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', retryable: false, details: { atLeast: true } });
    expect((error as QueueError).details.sizeBytes as number).toBeGreaterThan(MAX_BODY_BYTES);
    expect(f.calls('queue.publish_batch').map((r) => r.idempotencyKeys)).toEqual([
      [idempotencyKey('orders', ids[0]!), idempotencyKey('orders', ids[2]!)],
    ]);
    expect(tally(await drain(queue))).toEqual({ [ids[0]!]: 1, [ids[2]!]: 1 });
  });

  it('alone in a publish, it costs no request at all', async () => {
    const { f, driver } = await withOrders();
    const before = httpCalls(f).length;
    const [outcome] = await driver.publish([
      { eventId: 'e', dedupeKey: 'e', body: '{"x":1}', attributes: escaping, delaySeconds: 0 },
    ]);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(httpCalls(f).length).toBe(before);
  });

  it('a message just under the limit with plain attributes goes through', async () => {
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    const room = queue.capabilities.maxBodyBytes - 2_000;
    const input = { ...event(undefined, { blob: 'y'.repeat(room) }), attributes: { tenant: 'acme' } };
    await queue.publish(input);
    const [delivery] = await queue.receive();
    expect((delivery!.envelope.payload as { blob: string }).blob).toHaveLength(room);
    expect(delivery!.attributes).toEqual({ tenant: 'acme' });
  });
});

describe('event ids and idempotency keys', () => {
  it('a repeated event id is one message (Infrai’s idempotency key is the event id)', async () => {
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    const input = event('same-id');
    const first = await queue.publish(input);
    const again = await queue.publish(input);
    expect(again.messageId).toBe(first.messageId);
    // The same id with another envelope (a new occurred_at) is absorbed too. Whether the Queue
    // reports it as a duplicate is the manifest's word (an exact repeat gets the first answer back,
    // unmarked, so Infrai cannot always say); what counts is that it is one message.
    const changed = await queue.publish({
      envelope: { ...input.envelope, occurred_at: '2026-02-02T00:00:00.000Z' },
    });
    expect(changed.eventId).toBe('same-id');
    // Infrai's conflict names no message: the key it absorbed the repeat under stands in.
    expect(changed.messageId).toBe(idempotencyKey('orders', 'same-id'));
    expect(tally(await drain(queue))).toEqual({ 'same-id': 1 });
  });

  it('the same event published to two queues reaches both (the idempotency key is the queue’s and the event’s)', async () => {
    // Infrai's idempotency keys are not scoped by queue (the simulator: per API key and
    // capability). The second queue's publish carries the same key with another request, Infrai
    // answers IDEMPOTENCY_CONFLICT, and the driver reports that as absorbed (a success): the
    // message is never enqueued in the second queue, and the Queue says the publish succeeded.
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    await f.admin.createQueue({ name: 'audit' });
    const orders = await f.open('orders');
    const audit = await f.open('audit');
    const input = event('payment_8472:settled:v3');
    await orders.publish(input);
    const receipt = await audit.publish(input);
    expect(f.sim.queueState('orders')?.total).toBe(1);
    expect({ duplicate: receipt.duplicate, inAudit: f.sim.queueState('audit')?.total }).toEqual({
      duplicate: false,
      inAudit: 1,
    });
  });

  it('an event id longer than Infrai’s 255-character key (the Queue allows 512 bytes) is published, through the key helper', async () => {
    // Infrai's idempotency_key is at most 255 characters; the driver contract says such drivers
    // derive a key (deriveProviderKey) instead of sending the raw event id.
    const f = await started();
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    const long = `order:${'7'.repeat(300)}:settled`;
    const inputs = [event('short-id'), event(long)];
    const outcome = await queue.publishBatch(inputs).then(
      () => 'published',
      (error: QueueError) => `${error.code}: ${error.message}`,
    );
    expect(outcome).toBe('published');
    await queue.publish(event(long));
    expect(tally(await drain(queue))).toEqual({ 'short-id': 1, [long]: 1 });
  });
});

describe('timeouts', () => {
  it('a slow answer past timeoutMs is UNAVAILABLE (retryable), and the Queue retries it with the same key', async () => {
    const wire = recordingDispatcher();
    cleanups.push(wire.close);
    const f = await started({ simulator: { clock: undefined }, adapter: { dispatcher: wire.dispatcher } });
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders', { query: 'timeoutMs=200' });
    f.sim.faults.inject({ kind: 'slow', delayMs: 1_500, capability: 'queue.publish_batch' });
    const retries: QueueError[] = [];
    queue.on('retry', (info) => retries.push(info.error));
    const input = event();
    await queue.publish(input);
    expect(retries.map((e) => e.message)).toEqual([
      'infrai:orders queue.publish_batch: no answer from Infrai within 200 ms',
    ]);
    expect(retries[0]).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    const sent = wire.sent.filter((r) => r.path.endsWith('/publish_batch')).map((r) => batchKeys(r.body));
    const key = idempotencyKey('orders', input.envelope.event_id);
    expect(sent).toEqual([[key], [key]]);
  });

  it('timeoutMs bounds the wait for an answer: a 3 s answer with timeoutMs=200 fails well before it comes', async () => {
    // timeoutMs is the whole request's deadline (one shared timer per 50 ms slot of deadlines).
    const f = await started({ simulator: { clock: undefined } });
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders', { query: 'timeoutMs=200', retry: { maxAttempts: 1 } });
    f.sim.faults.inject({ kind: 'slow', delayMs: 3_000, capability: 'queue.publish_batch' });
    const startedAt = performance.now();
    const error = await failure(() => queue.publish(event()));
    const took = performance.now() - startedAt;
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect((error as QueueError).message).toContain('no answer from Infrai within 200 ms');
    expect(took).toBeLessThan(3_000);
  });
});

describe('the wire', () => {
  it('Bearer auth, canonical bodies with one trailing newline, no body on GET; onCall sees every call', async () => {
    const wire = recordingDispatcher();
    cleanups.push(wire.close);
    const calls: InfraiCall[] = [];
    const f = await started({ adapter: { dispatcher: wire.dispatcher, onCall: (c) => calls.push(c) } });
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders');
    await queue.publish({ ...event(), attributes: { z: 'last', a: 'first "quoted"' } });
    const [delivery] = await queue.receive();
    await delivery!.ack();
    for (const request of wire.sent) {
      expect(request.headers.authorization).toBe(`Bearer ${f.sim.apiKey}`);
      if (request.method === 'GET') {
        expect(request.body).toBeUndefined();
        expect(request.headers['content-type']).toBeUndefined();
      } else {
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.body!.endsWith('}\n')).toBe(true);
      }
    }
    expect(wire.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      // The admin: is the name free, the dead-letter queue, the queue.
      'GET /v1/queue/list',
      'POST /v1/queue/create',
      'POST /v1/queue/create',
      'GET /v1/queue/list',
      'POST /v1/queue/publish_batch',
      'POST /v1/queue/consume',
      'POST /v1/queue/ack',
    ]);
    expect(calls.map((c) => [c.capability, c.status])).toEqual([
      ['queue.list', 200],
      ['queue.create', 200],
      ['queue.create', 200],
      ['queue.list', 200],
      ['queue.publish_batch', 200],
      ['queue.consume', 200],
      ['queue.ack', 200],
    ]);
    const logged = f.sim.requests().map((r) => r.requestId);
    expect(calls.map((c) => c.requestId)).toEqual(logged);
    expect(delivery!.attributes).toEqual({ z: 'last', a: 'first "quoted"' });
  });

  it('after close, the Queue refuses every call with CLOSED and none reaches Infrai (the driver keeps no flag)', async () => {
    const { f, driver } = await withOrders();
    const queue = new Queue(driver);
    await queue.close();
    const before = httpCalls(f).length;
    await expect(queue.publish(event())).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(queue.receive()).rejects.toMatchObject({ code: 'CLOSED' });
    expect(httpCalls(f)).toHaveLength(before);
  });

  it('a queue deleted under an open driver: NOT_FOUND, not retried', async () => {
    const f = await started();
    await rawCreate(f.sim, { name: 'orders' });
    const queue = await f.open('orders');
    await f.admin.deleteQueue(f.urlOf('orders').href);
    await expect(queue.publish(event())).rejects.toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(f.calls('queue.publish_batch')).toHaveLength(1);
    await expect(queue.receive()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(f.calls('queue.consume')).toHaveLength(1);
  });
});

describe('classifyInfraiFailure', () => {
  const classify = (failure: Partial<Parameters<typeof classifyInfraiFailure>[0]>) =>
    classifyInfraiFailure(
      { status: 500, error: undefined, retryAfter: undefined, requestId: undefined, ...failure },
      'infrai:q queue.x',
    );

  it('402 is terminal whatever Infrai’s retryable flag says', () => {
    const error = classify({ status: 402, error: { code: 'INSUFFICIENT_CREDIT', retryable: true } });
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', retryable: false, details: { terminal: true } });
    expect(classify({ status: 402 }).details).toMatchObject({ terminal: true, infraiCode: 'HTTP_402' });
  });

  it('maps Infrai’s codes, then its retryable flag, then the status', () => {
    expect(classify({ status: 409, error: { code: 'RECEIPT_HANDLE_INVALID', retryable: false } }).code).toBe(
      'LEASE_LOST',
    );
    expect(classify({ status: 500, error: { code: 'INTERNAL_ERROR' } })).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
    });
    expect(classify({ status: 400, error: { code: 'SOMETHING_NEW', retryable: true } })).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
    });
    expect(classify({ status: 418 })).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect(classify({ status: 429, retryAfter: '7' })).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfterSeconds: 7,
    });
  });

  it('redacts what Infrai says', () => {
    const error = classify({
      status: 401,
      error: { code: 'UNAUTHORIZED', message: 'bad Bearer ifr_pk_proj_abc123' },
    });
    expect(error.message).not.toMatch(/ifr_pk_proj_abc123/);
  });

  it("Retry-After through core's parser, in whole seconds, at most an hour", () => {
    const after = (retryAfter: string) => classify({ status: 429, retryAfter }).retryAfterSeconds;
    expect(after(' 3 ')).toBe(3);
    expect(after('86400')).toBe(3600);
    expect(after(new Date(Date.now() + 90_000).toUTCString())).toBeGreaterThanOrEqual(89);
    expect(after('Wed, 31 Dec 2025 00:00:00 GMT')).toBe(0);
    expect(after('soon')).toBeUndefined();
    expect(after('1.5')).toBeUndefined();
  });
});

it('the Queue over the driver, opened directly, round-trips', async () => {
  const { driver } = await withOrders();
  const queue = new Queue(driver);
  await queue.publish({ ...event('direct'), attributes: { k: 'v' } });
  const [delivery] = await queue.receive();
  expect(delivery).toMatchObject({ attributes: { k: 'v' }, receiveCount: 1 });
  expect(delivery!.envelope.event_id).toBe('direct');
});
