import { payloadDigest } from '@queueport/core';
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

describe('business identity', () => {
  const envelope = (eventId: string, payload: Record<string, number>) =>
    JSON.stringify({ v: 1, event_id: eventId, type: 't', occurred_at: '2026-01-01T00:00:00.000Z', payload });

  it('names each effect by the event_id in the body, apart from the key it deduplicated on', async () => {
    const r = await receiver({ mode: 'idempotent' });
    const body = envelope('evt_body', { amount: 1 });
    // Unsigned, the receiver goes by Idempotency-Key: two keys are two requests to it.
    expect((await post(r.url, body, keyed('key_1'))).status).toBe(200);
    expect((await post(r.url, body, keyed('key_2'))).status).toBe(200);
    expect(r.effectCount('evt_body')).toBe(2);
    expect(r.effectCount('key_1')).toBe(0);
    expect(r.effectsFor('evt_body')).toMatchObject([
      { eventId: 'evt_body', identity: 'body', dedupeKey: 'key_1', key: 'key_1', webhookId: 'key_1' },
      { eventId: 'evt_body', identity: 'body', dedupeKey: 'key_2', key: 'key_2', webhookId: 'key_2' },
    ]);
    expect(r.effects()[0]?.payloadSha256).toBe(payloadDigest({ amount: 1 }));
  });

  it('falls back to the header id for a body that is no envelope', async () => {
    const r = await receiver({ mode: 'ignores-key' });
    await post(r.url, '[1,2]', { 'webhook-id': 'evt_h', 'idempotency-key': 'other' });
    expect(r.effectsFor('evt_h')).toMatchObject([
      {
        identity: 'headers',
        dedupeKey: undefined,
        key: 'other',
        payloadSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });
});

describe('signed requests are deduplicated on the signed webhook-id', () => {
  const signed = (secret: string, id: string, body: string) =>
    new WebhookSigner(secret).sign({ id, timestamp: Date.now(), body });

  it('a tampered Idempotency-Key under the same signed webhook-id is the same request', async () => {
    const secret = newSecret();
    const r = await receiver({ mode: 'idempotent', secrets: [secret] });
    const signature = signed(secret, 'evt_sig', '{"amount":1}');
    const first = await post(r.url, '{"amount":1}', { 'idempotency-key': 'evt_sig', ...signature });
    expect(first.status).toBe(200);
    const tampered = await post(r.url, '{"amount":1}', { 'idempotency-key': 'evt_tampered', ...signature });
    expect(tampered.status).toBe(200);
    expect(tampered.headers['idempotent-replayed']).toBe('true');
    expect(tampered.body).toBe(first.body);
    expect(r.effects()).toMatchObject([{ eventId: 'evt_sig', dedupeKey: 'evt_sig', key: 'evt_sig' }]);
  });

  it('no change to the unsigned key forces a second effect: another, none or a malformed one', async () => {
    const secret = newSecret();
    const r = await receiver({ mode: 'idempotent', secrets: [secret] });
    const signature = signed(secret, 'evt_once', '{}');
    const keys: Array<Record<string, string>> = [
      { 'idempotency-key': 'evt_once' },
      { 'idempotency-key': 'evt_once#2' },
      { 'idempotency-key': '"evt_once"' },
      { 'idempotency-key': '"open' },
      {},
    ];
    const answers = [];
    for (const key of keys) answers.push(await post(r.url, '{}', { ...key, ...signature }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.headers['idempotent-replayed'])).toEqual([
      undefined,
      'true',
      'true',
      'true',
      'true',
    ]);
    expect(r.effectCount('evt_once')).toBe(1);
  });

  it('a changed webhook-id is not signed, so it cannot make a new request either (401)', async () => {
    const secret = newSecret();
    const r = await receiver({ mode: 'idempotent', secrets: [secret] });
    const signature = signed(secret, 'evt_w', '{}');
    expect((await post(r.url, '{}', keyed('evt_w'))).status).toBe(401);
    expect((await post(r.url, '{}', { ...signature, 'idempotency-key': 'evt_w' })).status).toBe(200);
    expect(
      (await post(r.url, '{}', { ...signature, 'webhook-id': 'evt_w2', 'idempotency-key': 'evt_w2' })).status,
    ).toBe(401);
    expect(r.effects()).toHaveLength(1);
  });

  it('a different body under the same signed webhook-id is refused (422), whatever the key', async () => {
    const secret = newSecret();
    const r = await receiver({ mode: 'idempotent', secrets: [secret] });
    expect(
      (await post(r.url, '{"a":1}', { ...signed(secret, 'evt_b', '{"a":1}'), 'idempotency-key': 'x' }))
        .status,
    ).toBe(200);
    expect(
      (await post(r.url, '{"a":2}', { ...signed(secret, 'evt_b', '{"a":2}'), 'idempotency-key': 'y' }))
        .status,
    ).toBe(422);
    expect(r.effects()).toHaveLength(1);
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
