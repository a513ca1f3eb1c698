import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createWebhookSender,
  type DeliveryOutcome,
  type Destination,
  SENDER_OWNED_HEADERS,
  type WebhookRequest,
  type WebhookSender,
} from '../src';
import { destination, LOOPBACK_SSRF, newSecret } from './helpers/fixtures';
import { answer, startServer, type TestServer } from './helpers/http-servers';

let target: TestServer;
let sender: WebhookSender;
beforeAll(async () => {
  target = await startServer((_req, res) => answer(res, 200, {}, 'ok'));
  sender = createWebhookSender({ ssrf: LOOPBACK_SSRF });
});
afterAll(async () => {
  await sender.close();
  await target.close();
});
beforeEach(() => {
  target.received.length = 0;
});

const withHeaders = (headers: unknown): Destination =>
  destination(target.url, { headers: headers as Record<string, string> });

/** A send must resolve (never reject) and, here, must not have reached the receiver. */
async function refusedUnsent(request: unknown, signal?: unknown): Promise<DeliveryOutcome> {
  const outcome = await sender.send(request as WebhookRequest, signal as AbortSignal);
  expect(outcome.kind).toBe('terminal');
  expect(target.received).toHaveLength(0);
  return outcome;
}

describe('header values that are not strings are refused before anything is sent', () => {
  // An undefined value went out (undici skips it), then redaction threw on it: send() rejected
  // after the receiver had the request, leaving the ledger row ambiguous.
  it.each([
    ['a number', 5],
    ['an object', { a: 1 }],
    ['undefined', undefined],
    ['null', null],
    ['an array', ['a', 'b']],
  ])('%s', async (_name, value) => {
    const outcome = await refusedUnsent({
      destination: withHeaders({ 'x-tenant': value }),
      eventId: 'evt_v',
      body: '{}',
    });
    expect(outcome).toMatchObject({ reason: expect.stringMatching(/headers\.x-tenant must be a string/) });
  });
});

describe('destination headers cannot set framing, hop-by-hop or sender-owned headers', () => {
  const owned = [
    ...SENDER_OWNED_HEADERS,
    'proxy-authorization',
    'proxy-connection',
    'webhook-id',
    'webhook-x',
  ];
  it.each(owned.flatMap((name) => [name, name.toUpperCase(), name.replace(/^./, (c) => c.toUpperCase())]))(
    '%s',
    async (name) => {
      const outcome = await refusedUnsent({
        destination: withHeaders({ [name]: 'v' }),
        eventId: 'e',
        body: '{}',
      });
      expect(outcome).toMatchObject({ reason: expect.stringMatching(/is set by the sender/) });
    },
  );

  it('covers every name the issue lists', () => {
    for (const name of [
      'host',
      'connection',
      'keep-alive',
      'te',
      'trailer',
      'transfer-encoding',
      'upgrade',
    ]) {
      expect(SENDER_OWNED_HEADERS).toContain(name);
    }
    for (const name of ['content-length', 'content-type', 'expect', 'idempotency-key']) {
      expect(SENDER_OWNED_HEADERS).toContain(name);
    }
  });
});

describe('header names and values outside RFC 9110', () => {
  it.each([
    ['CR LF in a value', { 'x-a': 'v\r\nx-injected: 1' }],
    ['LF in a value', { 'x-a': 'v\nx' }],
    ['NUL in a value', { 'x-a': 'v\u0000' }],
    ['a leading space', { 'x-a': ' v' }],
    ['non-ASCII in a value', { 'x-a': 'café' }],
    ['a space in a name', { 'x a': 'v' }],
    ['a colon in a name', { 'x-a:': 'v' }],
    ['CR LF in a name', { 'x-a\r\nx-injected': 'v' }],
    ['an empty name', { '': 'v' }],
    ['the same name twice', { 'X-A': '1', 'x-a': '2' }],
  ])('%s is refused', async (_name, headers) => {
    await refusedUnsent({ destination: withHeaders(headers), eventId: 'e', body: '{}' });
  });

  it('a refused name that is not printable is not quoted back', async () => {
    const outcome = await refusedUnsent({
      destination: withHeaders({ 'Bearer tok_live_abc': 'v' }),
      eventId: 'e',
      body: '{}',
    });
    expect(JSON.stringify(outcome)).not.toContain('tok_live_abc');
  });

  it('tabs and spaces inside a value, and every token character in a name, are fine', async () => {
    const headers = { "x-!#$%&'*+.^_`|~": 'a b\tc', 'X-Tenant': 'acme' };
    expect(await sender.send({ destination: withHeaders(headers), eventId: 'e', body: '{}' })).toMatchObject({
      kind: 'delivered',
    });
    expect(target.received[0]?.headers).toMatchObject({ "x-!#$%&'*+.^_`|~": 'a b\tc', 'x-tenant': 'acme' });
  });
});

describe('send() resolves to an outcome for any request, sending nothing it cannot stand behind', () => {
  it.each([
    ['no request', undefined],
    ['null', null],
    ['a string', 'evt_1'],
    ['no destination', { eventId: 'e', body: '{}' }],
    [
      'a body that is not a string',
      { destination: destination('http://127.0.0.1:1/'), eventId: 'e', body: {} },
    ],
    [
      'an event id that is not a string',
      { destination: destination('http://127.0.0.1:1/'), eventId: 7, body: '' },
    ],
    [
      'a NaN timestamp',
      { destination: destination('http://127.0.0.1:1/'), eventId: 'e', body: '', timestamp: NaN },
    ],
    [
      'an unknown field',
      { destination: destination('http://127.0.0.1:1/'), eventId: 'e', body: '', attempt: 2 },
    ],
  ])('%s', async (_name, request) => {
    await refusedUnsent(request);
  });

  it('a destination that is not one', async () => {
    for (const dest of [
      null,
      'https://x.test/',
      { url: target.url },
      { id: 'd', url: target.url, secret: 's' },
    ]) {
      await refusedUnsent({ destination: dest, eventId: 'e', body: '{}' });
    }
  });

  it('a destination whose retry policy is nonsense (the worker would throw on it after the send)', async () => {
    await refusedUnsent({
      destination: destination(target.url, { retry: { maxAttempts: 0 } }),
      eventId: 'e',
      body: '{}',
    });
  });

  it('a signal that is not an AbortSignal', async () => {
    const outcome = await refusedUnsent(
      { destination: destination(target.url), eventId: 'e', body: '{}' },
      {},
    );
    expect(outcome).toMatchObject({ reason: expect.stringMatching(/signal/) });
  });

  it('a clock that returns nonsense cannot sign, so nothing is sent', async () => {
    const broken = createWebhookSender({ ssrf: LOOPBACK_SSRF, now: () => Number.NaN });
    try {
      const outcome = await broken.send({
        destination: destination(target.url, { secrets: [newSecret()] }),
        eventId: 'e',
        body: '{}',
      });
      expect(outcome).toMatchObject({ kind: 'terminal', reason: expect.stringMatching(/now\(\)/) });
      expect(target.received).toHaveLength(0);
    } finally {
      await broken.close();
    }
  });

  it('a clock that throws after the request went out does not undo the 2xx', async () => {
    let calls = 0;
    const flaky = createWebhookSender({
      ssrf: LOOPBACK_SSRF,
      now: () => {
        calls++;
        if (calls > 1) throw new Error('clock gone');
        return Date.now();
      },
    });
    try {
      const outcome = await flaky.send({
        destination: destination(target.url, { secrets: [newSecret()] }),
        eventId: 'e',
        body: '{}',
      });
      expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    } finally {
      await flaky.close();
    }
  });
});
