import { isQueueError, QueueError } from '@queueport/core';
import fc from 'fast-check';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, readCappedBody, type WebhookSender, type WebhookSenderOptions } from '../src';
import { destination, LOOPBACK_SSRF } from './helpers/fixtures';
import { answer, startServer, type TestServer } from './helpers/http-servers';

const senders: WebhookSender[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function refusal(options: unknown): QueueError {
  try {
    senders.push(createWebhookSender(options as WebhookSenderOptions));
  } catch (error) {
    if (error instanceof QueueError) return error;
    throw error;
  }
  throw new Error('expected createWebhookSender to refuse these options');
}

const TIMEOUTS = ['connectTimeoutMs', 'headersTimeoutMs', 'bodyTimeoutMs', 'requestTimeoutMs'] as const;

describe('createWebhookSender refuses bad options at construction, naming the field', () => {
  it.each([
    ...TIMEOUTS.flatMap((field) =>
      [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, 2 ** 31, '30000'].map(
        (value) => [field, value] as const,
      ),
    ),
    ...[0, -1, Number.NaN, 0.5, Number.POSITIVE_INFINITY, 2 ** 40, '65536'].map(
      (value) => ['maxResponseBytes', value] as const,
    ),
    ['connectionsPerOrigin', 0],
    ['connectionsPerOrigin', 2.5],
    ['idempotencyKeyStyle', 'BARE'],
    ['userAgent', 'queueport\r\nx-injected: 1'],
    ['userAgent', ''],
    ['now', 1_700_000_000_000],
    ['resolver', 'dns'],
  ] as const)('%s = %s', (field, value) => {
    const error = refusal({ [field]: value });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('a timeout beyond what setTimeout keeps is refused; the largest it keeps is accepted', () => {
    // Node replaces a longer delay with 1 ms: every request would time out at once.
    expect(refusal({ requestTimeoutMs: 2 ** 31 }).message).toMatch(/2147483647/);
    const longest = createWebhookSender({ requestTimeoutMs: 2 ** 31 - 1 });
    senders.push(longest);
    expect(longest.requestTimeoutMs).toBe(2 ** 31 - 1);
  });

  it('refuses what is not an options object, and unknown options (a typo would silently fall back)', () => {
    for (const bad of [null, 'fast', 42, [], true]) expect(refusal(bad).details.field).toBe('options');
    expect(refusal({ requestTimeoutMS: 5_000 }).details.field).toBe('requestTimeoutMS');
    expect(refusal({ ssrf: { allowedHost: ['hooks.example.com'] } }).details.field).toBe('ssrf.allowedHost');
  });

  it('checks the SSRF options inside, with the path to the field', () => {
    expect(refusal({ ssrf: { allowPrivateCidrs: ['10.0.0.0/8', '10/8'] } }).details.field).toBe(
      'ssrf.allowPrivateCidrs[1]',
    );
    expect(refusal({ ssrf: { allowLoopback: 'yes' } }).details.field).toBe('ssrf.allowLoopback');
    expect(refusal({ ssrf: { allowedHosts: ['hooks.example.com/path'] } }).details.field).toBe(
      'ssrf.allowedHosts[0]',
    );
    expect(refusal({ ssrf: 'off' }).details.field).toBe('ssrf');
  });

  it('takes options set to undefined as unset', () => {
    const sender = createWebhookSender({ requestTimeoutMs: undefined, ssrf: { allowHttp: undefined } });
    senders.push(sender);
    expect(sender.requestTimeoutMs).toBe(30_000);
  });

  it('never quotes the refused value', () => {
    const error = refusal({ userAgent: 'Bearer tok_live_secret\n' });
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('tok_live_secret');
  });

  it('any JSON-ish options: a sender, or INVALID_ARGUMENT naming a field; nothing else (property)', () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 31, () => 1, undefined),
    );
    const key = fc.constantFrom(
      ...TIMEOUTS,
      'maxResponseBytes',
      'idempotencyKeyStyle',
      'ssrf',
      'resolver',
      'now',
      'connectionsPerOrigin',
      'userAgent',
      'other',
    );
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(key, value), value), (options) => {
        try {
          const sender = createWebhookSender(options as WebhookSenderOptions);
          void sender.close();
        } catch (error) {
          expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
          expect(typeof (error as QueueError).details.field).toBe('string');
        }
      }),
    );
  });
});

describe('a response cap that is not a positive whole number', () => {
  // With the cap at 0 the sender destroyed the unread body, whose 'error' event nobody heard:
  // the process died. With NaN the cap was gone and the whole answer was buffered.
  it('cannot reach a request: 0, NaN and 1.5 are refused', async () => {
    for (const maxResponseBytes of [0, Number.NaN, 1.5]) {
      expect(refusal({ maxResponseBytes }).details.field).toBe('maxResponseBytes');
    }
  });

  it('the smallest valid cap reads one byte and leaves the process alive', async () => {
    const target = await startServer((_req, res) => answer(res, 200, {}, 'x'.repeat(100_000)));
    servers.push(target);
    const sender = createWebhookSender({ maxResponseBytes: 1, ssrf: LOOPBACK_SSRF });
    senders.push(sender);
    const outcome = await sender.send({
      destination: destination(target.url),
      eventId: 'evt_cap',
      body: '{}',
    });
    expect(outcome).toMatchObject({ kind: 'delivered', response: { body: 'x', truncated: true } });
  });

  it('readCappedBody with a cap of 0 or NaN reads nothing and raises no unheard error', async () => {
    const target = await startServer((_req, res) => answer(res, 200, {}, 'x'.repeat(100_000)));
    servers.push(target);
    for (const cap of [0, Number.NaN, -5]) {
      const response = await request(target.url, { method: 'POST', body: '{}' });
      expect(await readCappedBody(response.body, cap)).toEqual({ body: '', truncated: true });
    }
    // The 'error' event of a destroyed body fires on a later tick: give it the chance.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
});
