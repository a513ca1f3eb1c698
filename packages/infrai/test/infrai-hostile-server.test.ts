import type { ServerResponse } from 'node:http';
import { QueueError } from '@queueport/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createInfraiAdapter, type InfraiCall, InfraiDriver } from '../src';
import { startInfraiSimulator } from '../src/testing';
import {
  consumeAnswer,
  envelope,
  HOSTILE_QUEUE,
  type HostileServer,
  startHostileServer,
} from './support/hostile-server';
import { rawCreate } from './support/infrai-fixture';
import { failure, SecretScan } from './support/secret-scan';

// Answers the simulator never gives: a loopback server that drips, floods, redirects and lies.

/** A key without Infrai's `ifr_` prefix: the patterns alone do not know it. */
const KEY = 'sk_live_hostile9f8e7d6c5b4a3';

let server: HostileServer | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await server?.close();
  server = undefined;
});

async function hostile(options: { timeoutMs?: number; onCall?: (call: InfraiCall) => void } = {}) {
  server = await startHostileServer();
  const driver = await InfraiDriver.open({
    baseUrl: server.url,
    apiKey: KEY,
    queue: HOSTILE_QUEUE,
    ...options,
  });
  cleanups.push(() => driver.close());
  return { server, driver };
}

/** Settles within `ms`, or says it is still pending: a hang fails the test instead of timing it out. */
async function within<T>(
  ms: number,
  promise: Promise<T>,
): Promise<{ settled: boolean; value?: T; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    const outcome = await Promise.race([promise.then((value) => ({ value })), pending]);
    return outcome === 'pending' ? { settled: false } : { settled: true, value: outcome.value };
  } catch (error) {
    return { settled: true, error };
  } finally {
    clearTimeout(timer);
  }
}

const receive = (driver: InfraiDriver, maxMessages = 10) =>
  driver.receive({ maxMessages, leaseSeconds: 30, waitSeconds: 0 });

function drip(res: ServerResponse, everyMs: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"ok":true,"data":{"messages":[');
  const timer = setInterval(() => res.write(' '), everyMs);
  res.on('close', () => clearInterval(timer));
}

describe('timeoutMs bounds the whole request, body included', () => {
  it('a body dripping a byte every 250 ms fails UNAVAILABLE soon after timeoutMs=1000, for every call', async () => {
    const { server, driver } = await hostile({ timeoutMs: 1000 });
    server.handle((_req, res) => drip(res, 250));
    const started = performance.now();
    const outcomes = await Promise.all([
      within(6_000, receive(driver)),
      within(6_000, driver.ack(['r1'])),
      within(
        6_000,
        driver.publish([
          { body: '{"a":1}', attributes: {}, dedupeKey: 'e1', eventId: 'e1', delaySeconds: 0 },
        ]),
      ),
    ]);
    const took = performance.now() - started;
    expect(outcomes.map((o) => o.settled)).toEqual([true, true, true]);
    expect(outcomes[0]!.error).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      details: { timeoutMs: 1000 },
    });
    expect(outcomes[1]!.value).toMatchObject([{ ok: false, error: { code: 'UNAVAILABLE' } }]);
    expect(outcomes[2]!.error).toMatchObject({ code: 'UNAVAILABLE' });
    // The deadline plus a generous margin for a loaded machine.
    expect(took).toBeLessThan(4_000);
  });

  it('with a caller’s signal too: the deadline still holds, and the caller’s abort ends the call at once', async () => {
    const { server, driver } = await hostile({ timeoutMs: 1000 });
    server.handle((_req, res) => drip(res, 250));
    const controller = new AbortController();
    const dripped = await within(
      6_000,
      driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0, signal: controller.signal }),
    );
    expect(dripped.error).toMatchObject({ code: 'UNAVAILABLE', details: { timeoutMs: 1000 } });
    const aborted = driver.receive({
      maxMessages: 1,
      leaseSeconds: 30,
      waitSeconds: 0,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const outcome = await within(900, aborted);
    expect(outcome.settled).toBe(true);
    expect(outcome.error).toBeInstanceOf(QueueError);
  });

  it('close() does not wait for a call that hangs, and the hung call still ends by its deadline', async () => {
    const { server, driver } = await hostile({ timeoutMs: 1000 });
    server.handle(() => {}); // never answers
    const hung = within(6_000, receive(driver));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = await within(500, driver.close());
    expect(closing.settled).toBe(true);
    const outcome = await hung;
    expect(outcome.settled).toBe(true);
    expect(outcome.error).toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('what an answer may hold is bounded', () => {
  /** Streams `total` bytes of a JSON string, counting what the socket took before the client left. */
  function flood(res: ServerResponse, total: number, declareLength: boolean, written: { bytes: number }) {
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(declareLength ? { 'content-length': String(total) } : {}),
    });
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const head = '{"ok":true,"data":{"messages":[],"pad":"';
    const tail = '"}}';
    res.write(head);
    written.bytes += head.length;
    const next = () => {
      if (res.destroyed) return;
      if (written.bytes + chunk.length + tail.length > total) {
        res.end(tail);
        return;
      }
      written.bytes += chunk.length;
      if (res.write(chunk)) setImmediate(next);
      else res.once('drain', next);
    };
    next();
  }

  for (const declareLength of [false, true]) {
    it(`a 64 MiB answer (${declareLength ? 'with' : 'without'} a content-length) fails typed, and most of it is never read`, async () => {
      const { server, driver } = await hostile({ timeoutMs: 20_000 });
      const written = { bytes: 0 };
      server.handle((_req, res) => flood(res, 64 * 1024 * 1024, declareLength, written));
      const outcome = await within(15_000, receive(driver, 1));
      expect(outcome.settled).toBe(true);
      expect(outcome.error).toBeInstanceOf(QueueError);
      expect(outcome.error).toMatchObject({
        code: 'INTERNAL',
        details: { maxResponseBytes: expect.any(Number) },
      });
      const limit = (outcome.error as QueueError).details.maxResponseBytes as number;
      expect(limit).toBeLessThan(8 * 1024 * 1024);
      // What the server got into the socket before the client dropped it: the limit plus the
      // kernel's buffers, far from the 64 MiB.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(written.bytes).toBeLessThan(32 * 1024 * 1024);
    });
  }

  it('a receive of maxMessages 10 hands out 10 when the server returns 5,000', async () => {
    const { server, driver } = await hostile();
    server.handle((_req, res) => res.writeHead(200).end(consumeAnswer(5_000)));
    const messages = await receive(driver, 10);
    expect(messages).toHaveLength(10);
    expect(messages.map((m) => m.receipt)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`));
    server.handle((_req, res) => res.writeHead(200).end(consumeAnswer(5_000)));
    expect(await receive(driver, 3)).toHaveLength(3);
  });
});

describe('only an explicit success confirms', () => {
  it('{acknowledged: false}, {requeued: false} and a missing flag are LEASE_LOST, not settled', async () => {
    const { server, driver } = await hostile();
    const answers: Record<string, string[]> = {
      '/v1/queue/ack': [envelope({ acknowledged: false }), envelope({}), envelope({ acknowledged: 'true' })],
      '/v1/queue/nack': [envelope({ requeued: false }), envelope({ requeued: false, dead_lettered: false })],
    };
    for (const [path, bodies] of Object.entries(answers)) {
      for (const body of bodies) {
        server.handle((_req, res) => res.writeHead(200).end(body));
        const [outcome] =
          path === '/v1/queue/ack'
            ? await driver.ack(['r1'])
            : await driver.release([{ receipt: 'r1', delaySeconds: 0 }]);
        expect(outcome, body).toMatchObject({ ok: false });
        // A flag of the wrong type is a drifted answer (the snapshot says boolean): INTERNAL.
        expect(['LEASE_LOST', 'INTERNAL'], body).toContain((outcome as { error: QueueError }).error.code);
      }
    }
    server.handle((_req, res) => res.writeHead(200).end(envelope({ acknowledged: false })));
    expect((await driver.ack(['r1']))[0]).toMatchObject({
      ok: false,
      error: { code: 'LEASE_LOST', retryable: false },
    });
    // A nack past max_retries dead-letters the message: that is done too.
    server.handle((_req, res) => res.writeHead(200).end(envelope({ requeued: false, dead_lettered: true })));
    expect(await driver.release([{ receipt: 'r1', delaySeconds: 0 }])).toEqual([{ ok: true }]);
  });

  it('a 3xx with an ok:true body is UNAVAILABLE for every call, never a success', async () => {
    const { server, driver } = await hostile();
    for (const status of [301, 302, 303, 304, 307, 308]) {
      server.handle((req, res) => {
        const path = (req.url ?? '').split('?')[0];
        const data =
          path === '/v1/queue/ack'
            ? { acknowledged: true }
            : path === '/v1/queue/nack'
              ? { requeued: true }
              : { messages: [] };
        res
          .writeHead(status, { location: 'http://127.0.0.1:1/' })
          .end(status === 304 ? undefined : envelope(data));
      });
      expect((await driver.ack(['r1']))[0], String(status)).toMatchObject({
        ok: false,
        error: { code: 'UNAVAILABLE' },
      });
      expect((await driver.release([{ receipt: 'r1', delaySeconds: 0 }]))[0]).toMatchObject({ ok: false });
      expect(await failure(() => receive(driver))).toMatchObject({ code: 'UNAVAILABLE' });
    }
  });

  it('a received message whose receipt, id or count is not one fails the receive, naming the field, not its value', async () => {
    const { server, driver } = await hostile();
    const good = {
      message_id: 'm1',
      receipt_handle: 'r1',
      delivery_count: 1,
      payload: { queueport: 1, envelope: {} },
    };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ receipt_handle: 'r\n1' }, 'receipt_handle'],
      [{ receipt_handle: 'r'.repeat(10_000) }, 'receipt_handle'],
      [{ receipt_handle: '' }, 'receipt_handle'],
      [{ receipt_handle: 7 }, 'receipt_handle'],
      [{ message_id: 'm'.repeat(300) }, 'message_id'],
      [{ message_id: 'has space' }, 'message_id'],
      [{ delivery_count: 0 }, 'delivery_count'],
      [{ delivery_count: 1.5 }, 'delivery_count'],
      [{ delivery_count: 'abc' }, 'delivery_count'],
      [{ payload: [1] }, 'payload'],
    ];
    for (const [change, field] of bad) {
      server.handle((_req, res) =>
        res.writeHead(200).end(envelope({ messages: [good, { ...good, ...change }] })),
      );
      const error = await failure(() => receive(driver));
      expect(error, JSON.stringify(change).slice(0, 60)).toMatchObject({ code: 'INTERNAL' });
      expect(JSON.stringify((error as QueueError).details) + (error as QueueError).message).toContain(field);
    }
  });

  it('a publish result that says ok without a usable message id confirms nothing', async () => {
    const { server, driver } = await hostile();
    for (const result of [
      { ok: true },
      { ok: true, message_id: '' },
      { ok: true, message_id: 'a\nb' },
      { ok: 'yes' },
    ]) {
      server.handle((_req, res) => res.writeHead(200).end(envelope({ results: [result] })));
      const outcome = await driver
        .publish([{ body: '{"a":1}', attributes: {}, dedupeKey: 'e1', eventId: 'e1', delaySeconds: 0 }])
        .catch((error: unknown) => [{ ok: false, error }]);
      expect(outcome[0], JSON.stringify(result)).toMatchObject({ ok: false });
      expect((outcome[0] as { error: unknown }).error).toBeInstanceOf(QueueError);
    }
  });
});

describe('a server that echoes the key never puts it in an error', () => {
  it('not through x-request-id, metadata.request_id, error.code, error.message or the cause, with a key that has no ifr_ prefix', async () => {
    const calls: InfraiCall[] = [];
    const { server, driver } = await hostile({ onCall: (call) => calls.push(call) });
    const scan = new SecretScan([KEY, `Bearer ${KEY}`]);
    const echoes: Array<(auth: string) => { status: number; headers: Record<string, string>; body: string }> =
      [
        (auth) => ({ status: 500, headers: { 'x-request-id': auth }, body: envelope(null, { ok: false }) }),
        (_auth) => ({ status: 500, headers: { 'x-request-id': KEY }, body: '' }),
        (auth) => ({
          status: 503,
          headers: {},
          body: JSON.stringify({
            ok: false,
            error: { code: KEY, message: `bad ${auth}` },
            metadata: { request_id: KEY },
          }),
        }),
        (auth) => ({
          status: 400,
          headers: {},
          body: JSON.stringify({
            ok: false,
            error: { code: 'VALIDATION_ERROR', message: auth },
            metadata: { request_id: auth },
          }),
        }),
        (_auth) => ({
          status: 200,
          headers: { 'x-request-id': KEY },
          body: envelope({ messages: [{ [KEY]: 1 }] }, { metadata: { request_id: KEY } }),
        }),
        (auth) => ({
          status: 429,
          headers: { 'retry-after': auth },
          body: JSON.stringify({ ok: false, error: { message: KEY } }),
        }),
      ];
    for (const echo of echoes) {
      server.handle((req, res) => {
        const answer = echo(req.headers.authorization ?? '');
        res.writeHead(answer.status, answer.headers).end(answer.body);
      });
      const error = await failure(() => receive(driver));
      expect(error).toBeInstanceOf(QueueError);
      scan.error('receive', error);
      const [acked] = await driver.ack(['r1']);
      scan.error('ack', (acked as { error?: unknown }).error);
    }
    // The server did see the key (so the echoes above carried it).
    expect(server.seen.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
    scan.value('onCall', calls);
    expect(scan.summary()).toEqual([]);
    // Only the well-formed ids the answers carried besides the echoes (the queue list's, `req-1`).
    expect(new Set(calls.map((c) => c.requestId))).toEqual(
      new Set([undefined, 'req-1', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']),
    );
  });

  it('keeps a well-formed request id', async () => {
    const { server, driver } = await hostile();
    const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    server.handle((_req, res) =>
      res.writeHead(404).end(
        JSON.stringify({
          ok: false,
          error: { code: 'QUEUE_NOT_FOUND', message: 'gone' },
          metadata: { request_id: id },
        }),
      ),
    );
    expect(await failure(() => receive(driver))).toMatchObject({
      code: 'NOT_FOUND',
      details: { requestId: id },
    });
  });
});

describe('no long poll, and nothing in the adapter refuses one', () => {
  it('the driver answers at once whatever waitSeconds it is asked, sending no wait field', async () => {
    const simulator = await startInfraiSimulator();
    cleanups.push(() => simulator.close());
    await rawCreate(simulator, { name: 'orders' });
    const driver = await createInfraiAdapter({ apiKey: simulator.apiKey }).open(
      new URL(`infrai://${new URL(simulator.url).host}/orders?tls=false`),
      {},
    );
    cleanups.push(() => driver.close());
    const started = performance.now();
    expect(await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 20 })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(driver.capabilities.longPollMaxSeconds).toBe(0);
  });
});
