import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, WebhookSigner } from '../src';
import {
  type ReferenceReceiver,
  type ReferenceReceiverOptions,
  startReferenceReceiver,
} from '../src/reference-receiver';
import { destination, LOOPBACK_SSRF, newSecret } from './helpers/fixtures';

const receivers: ReferenceReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(options: ReferenceReceiverOptions): Promise<ReferenceReceiver> {
  const started = await startReferenceReceiver(options);
  receivers.push(started);
  return started;
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

const keyed = (key: string) => ({ 'idempotency-key': key, 'webhook-id': key });

describe('idempotent mode', () => {
  it('three identical requests: one effect, two replays of the stored answer', async () => {
    const r = await receiver({ mode: 'idempotent' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post(r.url, '{"n":1}', keyed('evt_1')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.headers['idempotent-replayed'])).toEqual([undefined, 'true', 'true']);
    expect(answers[2]?.body).toBe(answers[0]?.body);
    expect(r.effectCount('evt_1')).toBe(1);
    expect(r.requests()).toBe(3);
    expect(r.effects()[0]).toMatchObject({
      eventId: 'evt_1',
      key: 'evt_1',
      bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('reads bare and sf-string keys as the same key', async () => {
    const r = await receiver({ mode: 'idempotent' });
    expect((await post(r.url, '{}', { 'idempotency-key': '"evt_q"' })).status).toBe(200);
    const replay = await post(r.url, '{}', { 'idempotency-key': 'evt_q' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(r.effects()).toHaveLength(1);
  });

  it('answers 409 to the same key while the first request is still in flight (gated)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const r = await receiver({
      mode: 'idempotent',
      respond: async () => {
        entered();
        await gate;
        return 200;
      },
    });
    const first = post(r.url, '{}', keyed('evt_busy'));
    await inside;
    const second = await post(r.url, '{}', keyed('evt_busy'));
    release();
    expect(second.status).toBe(409);
    expect((await first).status).toBe(200);
    expect(r.effectCount('evt_busy')).toBe(1);
  });

  it('answers 409 to a concurrent duplicate with processingDelayMs', async () => {
    const r = await receiver({ mode: 'idempotent', processingDelayMs: 300 });
    const answers = await Promise.all([post(r.url, '{}', keyed('evt_c')), post(r.url, '{}', keyed('evt_c'))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(r.effectCount('evt_c')).toBe(1);
  });

  it('answers 422 when a key is reused with a different body', async () => {
    const r = await receiver({ mode: 'idempotent' });
    expect((await post(r.url, '{"amount":1}', keyed('evt_k'))).status).toBe(200);
    expect((await post(r.url, '{"amount":2}', keyed('evt_k'))).status).toBe(422);
    expect(r.effects()).toHaveLength(1);
  });

  it('does not cache a non-2xx answer: the retry is processed again', async () => {
    const r = await receiver({ mode: 'idempotent', respond: ({ attempt }) => (attempt === 1 ? 503 : 200) });
    const first = await post(r.url, '{}', keyed('evt_f'));
    expect(first.status).toBe(503);
    expect(r.effectCount('evt_f')).toBe(0);
    const second = await post(r.url, '{}', keyed('evt_f'));
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const third = await post(r.url, '{}', keyed('evt_f'));
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(r.effectCount('evt_f')).toBe(1);
  });

  it('a throwing respond answers 500 and leaves no effect', async () => {
    const r = await receiver({
      mode: 'idempotent',
      respond: () => {
        throw new Error('boom');
      },
    });
    expect((await post(r.url, '{}', keyed('evt_t'))).status).toBe(500);
    expect(r.effects()).toHaveLength(0);
  });

  it('requires the key (400) and refuses a malformed sf-string (400)', async () => {
    const r = await receiver({ mode: 'idempotent' });
    expect((await post(r.url, '{}', {})).status).toBe(400);
    expect((await post(r.url, '{}', { 'idempotency-key': '"open' })).status).toBe(400);
    expect(r.effects()).toHaveLength(0);
  });
});

describe('ignores-key mode', () => {
  it('records an effect for every 2xx request', async () => {
    const r = await receiver({ mode: 'ignores-key' });
    for (let i = 0; i < 3; i++) expect((await post(r.url, '{}', keyed('evt_dup'))).status).toBe(200);
    expect(r.effectCount('evt_dup')).toBe(3);
  });

  it('records nothing for a non-2xx answer', async () => {
    const r = await receiver({ mode: 'ignores-key', respond: () => 500 });
    await post(r.url, '{}', keyed('evt_x'));
    expect(r.effects()).toHaveLength(0);
    expect(r.requests()).toBe(1);
  });
});

describe('signature verification', () => {
  it('answers 401 and records no effect on a bad or missing signature', async () => {
    const secret = newSecret();
    const r = await receiver({ mode: 'idempotent', secrets: [secret] });
    const wrong = new WebhookSigner(newSecret()).sign({ id: 'evt_s', timestamp: Date.now(), body: '{}' });
    expect((await post(r.url, '{}', { ...keyed('evt_s'), ...wrong })).status).toBe(401);
    expect((await post(r.url, '{}', keyed('evt_s'))).status).toBe(401);
    const tampered = new WebhookSigner(secret).sign({ id: 'evt_s', timestamp: Date.now(), body: '{"a":1}' });
    expect((await post(r.url, '{"a":2}', { ...keyed('evt_s'), ...tampered })).status).toBe(401);
    expect(r.effects()).toHaveLength(0);
    const good = new WebhookSigner(secret).sign({ id: 'evt_s', timestamp: Date.now(), body: '{}' });
    expect((await post(r.url, '{}', { ...keyed('evt_s'), ...good })).status).toBe(200);
    expect(r.effectCount('evt_s')).toBe(1);
  });
});

describe('with the sender', () => {
  it('a signed delivery retried after a 503 takes effect exactly once', async () => {
    const secret = newSecret();
    const r = await receiver({
      mode: 'idempotent',
      secrets: [secret],
      respond: ({ attempt }) => (attempt === 1 ? 503 : 200),
    });
    const sender = createWebhookSender({ ssrf: LOOPBACK_SSRF, idempotencyKeyStyle: 'structured' });
    try {
      const dest = destination(r.url, { secrets: [secret] });
      const attempt = () =>
        sender.send({ destination: dest, eventId: 'payment_8472:settled:v3', body: '{"amount":4200}' });
      expect(await attempt()).toMatchObject({ kind: 'retry', status: 503 });
      expect(await attempt()).toMatchObject({ kind: 'delivered', status: 200 });
      // The crash window: the sender could not record the success and sends again.
      expect(await attempt()).toMatchObject({ kind: 'delivered', status: 200 });
      expect(r.effectCount('payment_8472:settled:v3')).toBe(1);
      expect(r.requests()).toBe(3);
    } finally {
      await sender.close();
    }
  });
});
