import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATOR_API_KEY, type InfraiSimulator, startInfraiSimulator } from '../src/testing';
import { callCapability, rawRequest } from '../src/testing/raw-client';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let sim: InfraiSimulator;
afterEach(async () => {
  await sim?.close();
});

async function started(options: Parameters<typeof startInfraiSimulator>[0] = {}) {
  sim = await startInfraiSimulator({ clock: new VirtualClock(), ...options });
  return sim;
}

const create = (name: string) =>
  callCapability(sim, 'queue.create', { name, idempotency_key: `create-${name}` });

describe('the envelope', () => {
  it('answers { ok, data, error, metadata } with a UUID v7 request id, also as x-request-id', async () => {
    await started();
    const answer = await create('orders');
    expect(answer.status).toBe(200);
    expect(answer.envelope.ok).toBe(true);
    expect(answer.envelope.error).toBeNull();
    const { metadata } = answer.envelope;
    expect(metadata).toEqual({
      cost_usd: 0.00001,
      latency_ms: expect.any(Number),
      vendor: 'infrai',
      cache_hit: false,
      request_id: expect.stringMatching(UUID_V7),
    });
    expect(answer.headers['x-request-id']).toBe(metadata.request_id);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    // Version 7 ids carry the simulator clock's time in their first 48 bits.
    expect(Number.parseInt(metadata.request_id.replaceAll('-', '').slice(0, 12), 16)).toBe(sim.clock.now());
  });

  it('answers errors as { code, message, hint, retryable } with the status the snapshot lists', async () => {
    await started();
    const answer = await callCapability(sim, 'queue.consume', { queue: 'missing' });
    expect(answer.status).toBe(404);
    expect(answer.envelope).toMatchObject({
      ok: false,
      data: null,
      error: { code: 'QUEUE_NOT_FOUND', message: expect.stringContaining('missing'), retryable: false },
      metadata: { vendor: 'infrai', cost_usd: 0, cache_hit: false },
    });
    expect(answer.envelope.error?.hint).toEqual(expect.any(String));
    expect(answer.headers['x-request-id']).toBe(answer.envelope.metadata.request_id);
  });

  it('answers an unknown route, or a known path with another method, 404 NOT_FOUND', async () => {
    await started();
    for (const [method, path] of [
      ['GET', '/v1/queue/nothing'],
      ['GET', '/v1/queue/publish'],
      ['POST', '/v1/queue/list'],
      ['GET', '/v2/discovery'],
    ] as const) {
      const answer = await rawRequest(sim, { method, path });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.envelope.error?.code).toBe('NOT_FOUND');
    }
  });

  it('starts in milliseconds and listens on a free port of 127.0.0.1 by default', async () => {
    await (await startInfraiSimulator()).close();
    const before = performance.now();
    await started();
    expect(performance.now() - before).toBeLessThan(100);
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.apiKey).toBe(DEFAULT_SIMULATOR_API_KEY);
  });
});

describe('authentication', () => {
  it('answers 401 UNAUTHORIZED without a bearer key or with an unknown one', async () => {
    await started();
    for (const apiKey of [null, 'ifr_not_a_key']) {
      const answer = await callCapability(sim, 'queue.list', {}, { apiKey });
      expect(answer.status).toBe(401);
      expect(answer.envelope.error).toMatchObject({ code: 'UNAUTHORIZED', retryable: false });
      expect(answer.envelope.error?.message).not.toContain('ifr_not_a_key');
    }
    const basic = await rawRequest(sim, { method: 'GET', path: '/v1/queue/list', apiKey: null });
    expect(basic.status).toBe(401);
  });

  it('accepts every configured key, the first being apiKey', async () => {
    await started({ apiKeys: ['ifr_one', 'ifr_pk_proj_two'] });
    expect(sim.apiKey).toBe('ifr_one');
    expect((await callCapability(sim, 'queue.list', {}, { apiKey: 'ifr_pk_proj_two' })).status).toBe(200);
    expect((await callCapability(sim, 'queue.list', {}, { apiKey: DEFAULT_SIMULATOR_API_KEY })).status).toBe(
      401,
    );
  });

  it('serves discovery without a key', async () => {
    await started();
    const answer = await rawRequest(sim, { method: 'GET', path: '/v1/discovery', apiKey: null });
    expect(answer.status).toBe(200);
  });
});

describe('canonical request bodies', () => {
  const refusals: [string, string, string | undefined, RegExp][] = [
    ['keys out of order', '{"queue":"orders","payload":{"b":1,"a":2}}\n', undefined, /canonical/],
    ['spaces', '{"payload": {}, "queue": "orders"}\n', undefined, /canonical/],
    ['no trailing newline', '{"payload":{},"queue":"orders"}', undefined, /newline/],
    ['two trailing newlines', '{"payload":{},"queue":"orders"}\n\n', undefined, /canonical|JSON/],
    ['a non-canonical number', '{"payload":{"n":1.0},"queue":"orders"}\n', undefined, /canonical/],
    ['not JSON', 'queue=orders\n', undefined, /not JSON/],
    ['a JSON array', '[]\n', undefined, /object/],
    ['an empty body', '', undefined, /newline/],
    ['text/plain', '{"payload":{},"queue":"orders"}\n', 'text/plain', /application\/json/],
    ['another charset', '{"payload":{},"queue":"orders"}\n', 'application/json; charset=latin1', /UTF-8/],
  ];

  it.each(refusals)(
    'refuses a body with %s: 400 VALIDATION_ERROR saying so',
    async (_, body, contentType, said) => {
      await started();
      await create('orders');
      const answer = await rawRequest(sim, {
        method: 'POST',
        path: '/v1/queue/publish',
        body,
        ...(contentType ? { contentType } : {}),
      });
      expect(answer.status).toBe(400);
      expect(answer.envelope.error).toMatchObject({ code: 'VALIDATION_ERROR', retryable: false });
      expect(answer.envelope.error?.message).toMatch(said);
      expect(sim.queueState('orders')?.total).toBe(0);
    },
  );

  it('refuses invalid UTF-8', async () => {
    await started();
    const answer = await rawRequest(sim, {
      method: 'POST',
      path: '/v1/queue/publish',
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d, 0x0a]),
      contentType: 'application/json; charset=utf-8',
    });
    expect(answer.status).toBe(400);
    expect(answer.envelope.error?.message).toContain('not valid UTF-8');
  });

  it('accepts canonical JSON with one newline, labelled application/json; charset=utf-8', async () => {
    await started();
    await create('orders');
    const answer = await rawRequest(sim, {
      method: 'POST',
      path: '/v1/queue/publish',
      body: '{"payload":{"a":2,"b":[1,"x"]},"queue":"orders"}\n',
      contentType: 'application/json; charset=utf-8',
    });
    expect(answer.status).toBe(200);
  });

  it('refuses a body on GET and DELETE, which take the path and the query string', async () => {
    await started();
    const answer = await rawRequest(sim, { method: 'GET', path: '/v1/queue/list', body: '{}\n' });
    expect(answer.status).toBe(400);
    expect(answer.envelope.error?.message).toMatch(/query string/);
  });
});

describe('request validation against the snapshot', () => {
  it('names the field that breaks the schema by its instancePath', async () => {
    await started();
    await create('orders');
    const cases: [string, Record<string, unknown>, string][] = [
      ['queue.consume', { queue: 'orders', max_messages: 11 }, '/max_messages must be <= 10'],
      ['queue.consume', { max_messages: 1 }, '/queue is required'],
      ['queue.consume', { queue: 'orders', wait_seconds: 1 }, '/wait_seconds is not allowed'],
      ['queue.publish', { queue: 'orders', payload: 'text' }, '/payload must be object'],
      [
        'queue.publish',
        { queue: 'orders', payload: {}, delay_seconds: 604_801 },
        '/delay_seconds must be <= 604800',
      ],
      ['queue.publish', { queue: 'orders', payload: {}, priority: 10 }, '/priority must be <= 9'],
      [
        'queue.publish_batch',
        { queue: 'orders', messages: [{ payload: 1 }] },
        '/messages/0/payload must be object',
      ],
      [
        'queue.publish_batch',
        { queue: 'orders', messages: [] },
        '/messages must NOT have fewer than 1 items',
      ],
      ['queue.create', { name: 'x' }, '/idempotency_key is required'],
      ['queue.create', { name: 'a b', idempotency_key: 'k' }, '/name must match pattern'],
      [
        'queue.create',
        { name: 'x', idempotency_key: 'k', message_retention_days: 31 },
        '/message_retention_days',
      ],
      ['queue.create', { name: 'x', idempotency_key: 'k', type: 'lifo' }, '/type must be equal to one of'],
      ['queue.dlq.list', { queue: 'orders', max_messages: 'many' }, '/max_messages must be integer'],
      ['queue.dlq.list', { queue: 'orders', max_messages: 0 }, '/max_messages must be >= 1'],
      ['queue.list', { verbose: true }, '/verbose is not allowed'],
    ];
    for (const [capability, params, said] of cases) {
      const answer = await callCapability(sim, capability, params);
      expect(answer.status, `${capability} ${JSON.stringify(params)}`).toBe(400);
      expect(answer.envelope.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.envelope.error?.message).toContain(`request field ${said}`);
    }
  });

  it('reads GET and DELETE parameters from the path and the query string, numbers parsed', async () => {
    await started();
    await callCapability(sim, 'queue.create', { name: 'orders-dlq', idempotency_key: 'a' });
    await callCapability(sim, 'queue.create', {
      name: 'orders',
      idempotency_key: 'b',
      dead_letter_queue: 'orders-dlq',
    });
    const listed = await rawRequest(sim, { method: 'GET', path: '/v1/queue/dlq/list/orders?max_messages=5' });
    expect(listed.status).toBe(200);
    expect(listed.envelope.data).toEqual({ messages: [] });
    const deleted = await rawRequest(sim, { method: 'DELETE', path: '/v1/queue/delete/orders' });
    expect(deleted.envelope.data).toEqual({ deleted: true });
    const badName = await rawRequest(sim, { method: 'DELETE', path: '/v1/queue/delete/a%20b' });
    expect(badName.envelope.error?.message).toContain('request field /queue must match pattern');
  });

  it('refuses a path parameter the body contradicts', async () => {
    await started();
    await create('orders');
    const answer = await rawRequest(sim, {
      method: 'POST',
      path: '/v1/queue/dlq/redrive/orders',
      body: '{"queue":"other"}\n',
    });
    expect(answer.status).toBe(400);
    expect(answer.envelope.error?.message).toContain('/queue');
  });
});
