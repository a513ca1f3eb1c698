import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:net';
import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildReconciliationReport,
  createWebhookSender,
  DeliveryWorker,
  type WebhookSender,
  type WebhookSenderOptions,
} from '../src';
import { destination, LOOPBACK_SSRF } from './helpers/fixtures';
import { answer, closedPort, startServer, type TestServer } from './helpers/http-servers';
import { ledgerStores } from './helpers/ledger-stores';

/** For requests a receiver never answers in time: the sender gives up after this. */
const SHORT_TIMEOUT_MS = 300;
/** For requests that are answered: long enough for a busy machine. */
const ANSWER_TIMEOUT_MS = 10_000;
/** A worker's sender sees both; the slow attempt costs this much real time. */
const WORKER_TIMEOUT_MS = 2_000;
const servers: { close(): Promise<void> | void }[] = [];
const senders: WebhookSender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function sender(options: WebhookSenderOptions = {}): WebhookSender {
  const created = createWebhookSender({
    requestTimeoutMs: ANSWER_TIMEOUT_MS,
    ...options,
    ssrf: { ...LOOPBACK_SSRF, ...options.ssrf },
  });
  senders.push(created);
  return created;
}

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

/**
 * Acts on the request (it is recorded), then answers only once the sender has given up and
 * closed the connection: too late, however slow the machine is.
 */
async function answerTooLate(res: ServerResponse): Promise<void> {
  if (!res.socket?.destroyed) await once(res, 'close');
  if (!res.destroyed) answer(res, 200);
}

const slowReceiver = () => server((_request, res) => answerTooLate(res));

/** Reads the whole request, then breaks the connection without a word. */
const cuttingReceiver = () =>
  server((_request, _res, raw) => {
    raw.socket.destroy();
  });

/** A raw TCP receiver that reads the request, then writes `reply` and closes. */
async function rawReceiver(reply: string): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const tcp: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(seen)?.[1] ?? 0);
      if (end !== -1 && seen.length >= end + 4 + length) {
        requests++;
        socket.end(reply);
      }
    });
  });
  tcp.listen(0, '127.0.0.1');
  await once(tcp, 'listening');
  servers.push({ close: () => new Promise<void>((resolve) => tcp.close(() => resolve())) });
  const { port } = tcp.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, requests: () => requests };
}

const sendTo = (s: WebhookSender, url: string) =>
  s.send({ destination: destination(url), eventId: 'evt_1', body: '{"amount":4200}' });

describe('the sender tells "sent, no usable answer" from "never sent"', () => {
  it('a timeout after the request left is an ambiguous retry (the receiver acted)', async () => {
    const target = await slowReceiver();
    const outcome = await sendTo(sender({ requestTimeoutMs: SHORT_TIMEOUT_MS }), target.url);
    expect(outcome).toMatchObject({ kind: 'retry', ambiguous: true });
    if (outcome.kind === 'retry')
      expect(outcome.reason).toMatch(/request timeout.*after the request was sent/);
    expect(target.received).toHaveLength(1);
  });

  it('a connection destroyed after the request was read is an ambiguous retry', async () => {
    const target = await cuttingReceiver();
    const outcome = await sendTo(sender(), target.url);
    expect(outcome).toMatchObject({ kind: 'retry', ambiguous: true });
    expect(target.received).toHaveLength(1);
  });

  it('an answer cut off before its status line is complete is an ambiguous retry', async () => {
    const target = await rawReceiver('HTTP/1.1 20');
    const outcome = await sendTo(sender(), target.url);
    expect(outcome).toMatchObject({ kind: 'retry', ambiguous: true });
    expect(target.requests()).toBe(1);
  });

  it('an answer whose body breaks off after a 200 is delivered: the status was a usable answer', async () => {
    const target = await rawReceiver('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
    expect(await sendTo(sender(), target.url)).toMatchObject({ kind: 'delivered', status: 200 });
  });

  it('a 503 is a plain retry: the receiver answered', async () => {
    const target = await server((_request, res) => answer(res, 503));
    const outcome = await sendTo(sender(), target.url);
    expect(outcome.kind).toBe('retry');
    expect(outcome).not.toHaveProperty('ambiguous');
  });

  it('a refused connection, a failed name lookup and an SSRF refusal were never sent: not ambiguous', async () => {
    const refused = await sendTo(sender(), `http://127.0.0.1:${await closedPort()}/hook`);
    expect(refused.kind).toBe('retry');
    expect(refused).not.toHaveProperty('ambiguous');

    const noName = sender({
      resolver: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example'), { code: 'ENOTFOUND' });
      },
    });
    const unresolved = await sendTo(noName, 'http://hooks.example/hook');
    expect(unresolved.kind).toBe('retry');
    expect(unresolved).not.toHaveProperty('ambiguous');

    const guarded = createWebhookSender();
    senders.push(guarded);
    const refusal = await sendTo(guarded, 'https://127.0.0.1/hook');
    expect(refusal.kind).toBe('terminal');
    expect(refusal).not.toHaveProperty('ambiguous');
  });
});

const stores = ledgerStores('ambiguous');

describe.each(stores)(
  'the worker on a %s ledger records a request that left unanswered as ambiguous',
  (_name, open) => {
    async function deliverTwice(receiver: TestServer) {
      const clock = new VirtualClock();
      const queue = new Queue(new MemoryDriver({ clock }), { clock });
      const { ledger, dispose } = await open(clock);
      try {
        const worker = new DeliveryWorker({
          queue,
          ledger,
          sender: sender({ requestTimeoutMs: WORKER_TIMEOUT_MS }),
          clock,
          route: () => destination(receiver.url),
        });
        await queue.publish({
          envelope: { event_id: 'pay_1:settled', type: 'payment.settled', payload: { n: 1 } },
        });
        const [first] = await queue.receive({ leaseSeconds: 30 });
        expect(await worker.process(first!)).toBe('retry-scheduled');
        expect(await ledger.get('pay_1:settled')).toMatchObject({ state: 'processing', ambiguous: true });

        await clock.advance(24 * 3600 * 1000);
        const [second] = await queue.receive({ leaseSeconds: 30 });
        expect(await worker.process(second!)).toBe('delivered');
        const row = await ledger.get('pay_1:settled');
        const report = await buildReconciliationReport(ledger, { olderThanSeconds: 60 });
        return { row, report };
      } finally {
        await queue.close();
        await dispose();
      }
    }

    it('a slow receiver that acted, then answered after the timeout: delivered later, still ambiguous, reported', async () => {
      let calls = 0;
      const receiver = await server(async (_request, res) => {
        if (++calls === 1) await answerTooLate(res);
        else answer(res, 200);
      });
      const { row, report } = await deliverTwice(receiver);
      expect(receiver.received).toHaveLength(2);
      expect(row).toMatchObject({ state: 'delivered', ambiguous: true, attempts: 2 });
      expect(report.ambiguous.map((r) => r.eventId)).toEqual(['pay_1:settled']);
    });

    it('a receiver that broke the connection after reading the request: ambiguous, reported', async () => {
      let calls = 0;
      const receiver = await server((_request, res, raw) => {
        if (++calls === 1) raw.socket.destroy();
        else answer(res, 200);
      });
      const { row, report } = await deliverTwice(receiver);
      expect(row).toMatchObject({ state: 'delivered', ambiguous: true });
      expect(report.ambiguous.map((r) => r.eventId)).toEqual(['pay_1:settled']);
    });

    it('a 503 then a 200 is not ambiguous: every attempt had an answer', async () => {
      let calls = 0;
      const receiver = await server((_request, res) => answer(res, ++calls === 1 ? 503 : 200));
      const clock = new VirtualClock();
      const queue = new Queue(new MemoryDriver({ clock }), { clock });
      const { ledger, dispose } = await open(clock);
      try {
        const worker = new DeliveryWorker({
          queue,
          ledger,
          sender: sender(),
          clock,
          route: () => destination(receiver.url),
        });
        await queue.publish({ envelope: { event_id: 'pay_2', type: 'payment.settled', payload: { n: 2 } } });
        const [first] = await queue.receive({ leaseSeconds: 30 });
        expect(await worker.process(first!)).toBe('retry-scheduled');
        await clock.advance(24 * 3600 * 1000);
        const [second] = await queue.receive({ leaseSeconds: 30 });
        expect(await worker.process(second!)).toBe('delivered');
        expect(await ledger.get('pay_2')).toMatchObject({ state: 'delivered', ambiguous: false });
        expect((await buildReconciliationReport(ledger, { olderThanSeconds: 60 })).ambiguous).toEqual([]);
      } finally {
        await queue.close();
        await dispose();
      }
    });
  },
);
