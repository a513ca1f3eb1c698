import { inspect } from 'node:util';
import { nextRetry } from '@queueport/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  assertDestination,
  createWebhookSender,
  type DeliveryOutcome,
  type Destination,
  resolveRetrySchedule,
  USER_AGENT,
  type WebhookSender,
  type WebhookSenderOptions,
  WebhookSigner,
} from '../src';
import { destination, LOOPBACK_SSRF, newSecret } from './helpers/fixtures';
import { answer, closedPort, startServer, type TestServer } from './helpers/http-servers';
import { installNetworkTripwire } from './helpers/network-tripwire';

const servers: TestServer[] = [];
const senders: WebhookSender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

function sender(options: WebhookSenderOptions = {}): WebhookSender {
  const created = createWebhookSender({ ...options, ssrf: { ...LOOPBACK_SSRF, ...options.ssrf } });
  senders.push(created);
  return created;
}

const send = (s: WebhookSender, dest: Destination, eventId = 'evt_1', body = '{"amount":4200}') =>
  s.send({ destination: dest, eventId, body });

describe('status classification over real HTTP', () => {
  it.each([200, 201, 204])('%i is delivered', async (status) => {
    const target = await server((_req, res) => answer(res, status));
    const outcome = await send(sender(), destination(target.url));
    expect(outcome).toMatchObject({ kind: 'delivered', status });
    expect(target.received).toHaveLength(1);
  });

  it.each([301, 302, 307, 308])('%i is terminal and the Location target is never hit', async (status) => {
    const elsewhere = await server((_req, res) => answer(res, 200));
    const target = await server((_req, res) => answer(res, status, { location: elsewhere.url }));
    const outcome = await send(sender(), destination(target.url));
    expect(outcome).toMatchObject({ kind: 'terminal', status });
    if (outcome.kind === 'terminal') expect(outcome.reason).toMatch(/redirects are never followed/);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('410 asks to disable the destination', async () => {
    const target = await server((_req, res) => answer(res, 410));
    expect(await send(sender(), destination(target.url))).toMatchObject({ kind: 'disable', status: 410 });
  });

  it.each([400, 401, 403, 404, 413, 422])('%i is terminal', async (status) => {
    const target = await server((_req, res) => answer(res, status));
    expect(await send(sender(), destination(target.url))).toMatchObject({ kind: 'terminal', status });
  });

  it.each([408, 500, 502, 504])('%i is retried', async (status) => {
    const target = await server((_req, res) => answer(res, status));
    const outcome = await send(sender(), destination(target.url));
    expect(outcome).toMatchObject({ kind: 'retry', status });
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });

  it('429 with Retry-After: 7 is retried no earlier than 7 s', async () => {
    const target = await server((_req, res) => answer(res, 429, { 'retry-after': '7' }));
    expect(await send(sender(), destination(target.url))).toMatchObject({
      kind: 'retry',
      status: 429,
      retryAfterMs: 7000,
    });
  });

  it("reports Retry-After as asked; the destination's policy bounds the wait it leads to", async () => {
    const target = await server((_req, res) => answer(res, 429, { 'retry-after': '7' }));
    const capped = destination(target.url, { retry: { retryAfterMaxMs: 5000 } });
    const cappedOutcome = await send(sender(), capped);
    expect(cappedOutcome).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
    const retryAfterMs = (cappedOutcome as { retryAfterMs?: number }).retryAfterMs;
    expect(nextRetry(resolveRetrySchedule(capped.retry), 1, retryAfterMs)).toMatchObject({ delayMs: 5000 });
    const raised = destination(target.url, { retry: { retryAfterMinMs: 60_000, retryAfterMaxMs: 120_000 } });
    expect(nextRetry(resolveRetrySchedule(raised.retry), 1, retryAfterMs)).toMatchObject({ delayMs: 60_000 });
  });

  it('503 with an HTTP-date Retry-After is read relative to the injected now', async () => {
    const now = Date.UTC(2030, 0, 2, 3, 4, 5);
    const target = await server((_req, res) =>
      answer(res, 503, { 'retry-after': new Date(now + 120_000).toUTCString() }),
    );
    expect(await send(sender({ now: () => now }), destination(target.url))).toMatchObject({
      kind: 'retry',
      status: 503,
      retryAfterMs: 120_000,
    });
  });

  it('ignores a garbage Retry-After', async () => {
    const target = await server((_req, res) => answer(res, 503, { 'retry-after': 'soon-ish' }));
    const outcome = await send(sender(), destination(target.url));
    expect(outcome).toMatchObject({ kind: 'retry', status: 503 });
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });
});

describe('network failures', () => {
  it('connection refused on a closed port is retried', async () => {
    const port = await closedPort();
    const outcome = await send(sender(), destination(`http://127.0.0.1:${port}/hook`));
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('a server that never answers hits the headers timeout and is retried', async () => {
    const target = await server(() => {
      /* never answers */
    });
    const outcome = await send(sender({ headersTimeoutMs: 50 }), destination(target.url));
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/headers timeout/) });
    expect(outcome).not.toHaveProperty('status');
  });

  it('the overall request timeout is retried, as ambiguous once the request was sent', async () => {
    const target = await server(() => {
      /* never answers */
    });
    const s = sender({ requestTimeoutMs: 50 });
    expect(s.requestTimeoutMs).toBe(50);
    expect(await send(s, destination(target.url))).toMatchObject({
      kind: 'retry',
      reason: 'request timeout after 50 ms, after the request was sent',
      ambiguous: true,
    });
  });

  it("the caller's abort is retried, not lost", async () => {
    const target = await server(() => {
      /* never answers */
    });
    const controller = new AbortController();
    const pending = sender().send(
      { destination: destination(target.url), eventId: 'evt_abort', body: '{}' },
      controller.signal,
    );
    // Abort once the request has reached the server, so it is really in flight.
    while (target.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await pending).toMatchObject({
      kind: 'retry',
      reason: expect.stringMatching(/aborted/),
      ambiguous: true,
    });
  });

  it('exposes the default total request timeout (30 s) for lease sizing', () => {
    const defaults = createWebhookSender();
    senders.push(defaults);
    expect(defaults.requestTimeoutMs).toBe(30_000);
  });
});

describe('response bodies', () => {
  it('reads at most maxResponseBytes and still classifies', async () => {
    const big = 'x'.repeat(256 * 1024);
    const ok = await server((_req, res) => answer(res, 200, {}, big));
    const failing = await server((_req, res) => answer(res, 503, {}, big));
    const s = sender({ maxResponseBytes: 1000 });
    const delivered = await send(s, destination(ok.url));
    expect(delivered).toMatchObject({ kind: 'delivered', status: 200, response: { truncated: true } });
    expect(delivered.kind === 'delivered' && delivered.response?.body.length).toBe(1000);
    const retried = await send(s, destination(failing.url));
    expect(retried).toMatchObject({ kind: 'retry', status: 503, response: { truncated: true } });
    // The sender is still usable after cutting bodies off.
    expect(await send(s, destination(ok.url))).toMatchObject({ kind: 'delivered' });
  });

  it('keeps a small body whole', async () => {
    const target = await server((_req, res) => answer(res, 422, {}, 'bad field: amount'));
    expect(await send(sender(), destination(target.url))).toMatchObject({
      kind: 'terminal',
      status: 422,
      response: { body: 'bad field: amount', truncated: false },
    });
  });
});

describe('request headers', () => {
  it('sends content-type, user-agent, the body verbatim, and a bare Idempotency-Key by default', async () => {
    const target = await server((_req, res) => answer(res, 204));
    const body = '{"b":1,  "a":2}';
    await send(sender(), destination(target.url), 'payment_8472:settled:v3', body);
    const [request] = target.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook');
    expect(request?.body).toBe(body);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'idempotency-key': 'payment_8472:settled:v3',
    });
    expect(USER_AGENT).toMatch(/^queueport-webhook\/\d+\.\d+\.\d+/);
    expect(request?.headers).not.toHaveProperty('webhook-signature');
  });

  it('sends a structured (sf-string) key when configured, per sender or per destination', async () => {
    const target = await server((_req, res) => answer(res, 204));
    await send(sender({ idempotencyKeyStyle: 'structured' }), destination(target.url), 'evt_"q"\\x');
    await send(sender(), destination(target.url, { idempotencyKeyStyle: 'structured' }), 'evt_2');
    await send(
      sender({ idempotencyKeyStyle: 'structured' }),
      destination(target.url, { idempotencyKeyStyle: 'bare' }),
      'evt_3',
    );
    expect(target.received.map((r) => r.headers['idempotency-key'])).toEqual([
      '"evt_\\"q\\"\\\\x"',
      '"evt_2"',
      'evt_3',
    ]);
  });

  it('refuses an event id that cannot be a header, without sending anything', async () => {
    const target = await server((_req, res) => answer(res, 204));
    const outcome = await send(
      sender({ idempotencyKeyStyle: 'structured' }),
      destination(target.url),
      'évènement',
    );
    expect(outcome).toMatchObject({ kind: 'terminal', reason: expect.stringMatching(/printable ASCII/) });
    expect(target.received).toHaveLength(0);
  });

  it('passes destination headers through, lower-cased', async () => {
    const target = await server((_req, res) => answer(res, 204));
    const dest = destination(target.url, { secrets: [newSecret()], headers: { 'X-Tenant': 'acme' } });
    await send(sender(), dest, 'evt_h');
    const headers = target.received[0]?.headers;
    expect(headers).toMatchObject({ 'x-tenant': 'acme', 'idempotency-key': 'evt_h', 'webhook-id': 'evt_h' });
  });

  it('refuses, without sending, destination headers that would replace the key or the signature', async () => {
    const target = await server((_req, res) => answer(res, 204));
    const forged: Record<string, string>[] = [
      { 'Idempotency-Key': 'forged' },
      { 'webhook-signature': 'v1,forged' },
    ];
    for (const headers of forged) {
      const dest = destination(target.url, { secrets: [newSecret()], headers });
      expect(await send(sender(), dest, 'evt_h')).toMatchObject({
        kind: 'terminal',
        reason: expect.stringMatching(/is set by the sender/),
      });
    }
    expect(target.received).toHaveLength(0);
  });
});

describe('Standard Webhooks signatures', () => {
  it('verify on the server with standardwebhooks Webhook.verify', async () => {
    const secret = newSecret();
    const verdicts: string[] = [];
    const target = await server((req, res) => {
      try {
        new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
        verdicts.push('ok');
        answer(res, 204);
      } catch (error) {
        verdicts.push(String(error));
        answer(res, 401);
      }
    });
    const body = '{"event":"payment.settled","amount":4200}';
    const outcome = await send(sender(), destination(target.url, { secrets: [secret] }), 'evt_signed', body);
    expect(outcome).toMatchObject({ kind: 'delivered' });
    expect(verdicts).toEqual(['ok']);
    const headers = target.received[0]?.headers;
    expect(headers?.['webhook-id']).toBe('evt_signed');
    expect(headers?.['webhook-timestamp']).toMatch(/^\d+$/);
    expect(headers?.['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  });

  it('signs with every secret during a rotation; each verifies on its own', async () => {
    const [oldSecret, newer] = [newSecret(), newSecret()];
    const target = await server((_req, res) => answer(res, 204));
    await send(sender(), destination(target.url, { secrets: [oldSecret, newer] }), 'evt_rot', '{}');
    const headers = target.received[0]?.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newer]) {
      expect(() => new Webhook(secret).verify('{}', headers)).not.toThrow();
    }
    expect(() => new Webhook(newSecret()).verify('{}', headers)).toThrow();
  });

  it('refuses secrets that are neither a string nor an array with INVALID_ARGUMENT', () => {
    for (const secrets of [5, null, undefined, { 0: newSecret(), length: 1 }]) {
      expect(() => new WebhookSigner(secrets as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'secrets' } }),
      );
    }
  });

  it('signs with the given timestamp in whole seconds', () => {
    const signer = new WebhookSigner(newSecret());
    const headers = signer.sign({ id: 'evt', timestamp: 1_700_000_000_999, body: '{}' });
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it.each([
    ['no prefix', 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', /must start with "whsec_"/],
    ['not base64', 'whsec_not*base64*at*all*here*!!', /not valid base64/],
    ['too short', `whsec_${Buffer.from('short-key').toString('base64')}`, /decodes to 9 bytes/],
  ])('refuses a secret with %s, naming it by position only', (_name, bad, message) => {
    let thrown: unknown;
    try {
      new WebhookSigner([newSecret(), bad]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/secret #2/);
    expect((thrown as Error).message).toMatch(message);
    const everything = `${(thrown as Error).message} ${JSON.stringify(thrown)} ${inspect(thrown)}`;
    expect(everything).not.toContain(bad);
    expect(everything).not.toContain(bad.replace(/^whsec_/, ''));
  });
});

describe('secrets never leak', () => {
  it('into outcomes, reasons, response samples or thrown errors', async () => {
    const tripwire = installNetworkTripwire();
    onTestFinished(() => tripwire.restore());
    const secret = newSecret();
    const base64 = secret.slice('whsec_'.length);
    const token = 'Bearer tok_live_0123456789abcdef';
    const seen: string[] = [];
    const collect = (value: unknown) =>
      seen.push(
        typeof value === 'string' ? value : `${JSON.stringify(value)} ${inspect(value, { depth: 5 })}`,
      );

    // A receiver that echoes everything it got back into its (failing) answer.
    const echo = await server((req, res) => answer(res, 500, {}, JSON.stringify(req.headers)));
    const redirect = await server((_req, res) =>
      answer(res, 302, { location: `https://x.test/?key=${secret}` }),
    );
    const port = await closedPort();
    const s = sender();
    const dest = (url: string): Destination =>
      destination(url, { secrets: [secret], headers: { authorization: token } });
    const outcomes: DeliveryOutcome[] = [
      await send(s, dest(echo.url)),
      await send(s, dest(redirect.url)),
      await send(s, dest(`http://127.0.0.1:${port}/`)),
      await send(sender({ headersTimeoutMs: 30 }), dest((await server(() => {})).url)),
      await send(sender({ ssrf: { allowHttp: false, allowLoopback: false } }), dest('https://10.0.0.1/')),
      await send(s, destination(echo.url, { secrets: [`${secret}!`] })),
    ];
    outcomes.forEach(collect);
    expect(outcomes.map((o) => o.kind)).toEqual([
      'retry',
      'terminal',
      'retry',
      'retry',
      'terminal',
      'terminal',
    ]);
    // The echo really contained the header: the redaction did the work.
    expect(echo.received[0]?.headers.authorization).toBe(token);

    for (const attempt of [
      () => new WebhookSigner(`${secret}!`),
      () => assertDestination({ id: 'd', url: 'https://x.test/', secrets: [`${secret}$`] }),
    ]) {
      try {
        attempt();
      } catch (error) {
        collect(error);
        collect((error as Error).message);
      }
    }
    collect(new WebhookSigner(secret));
    expect(seen.length).toBeGreaterThan(6);
    for (const text of seen) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(base64);
      expect(text).not.toContain('tok_live_0123456789abcdef');
    }
  });

  it('the secret never travels on the wire either', async () => {
    const secret = newSecret();
    const target = await server((_req, res) => answer(res, 204));
    await send(sender(), destination(target.url, { secrets: [secret] }));
    const wire = JSON.stringify(target.received);
    expect(wire).not.toContain(secret.slice('whsec_'.length));
  });
});
