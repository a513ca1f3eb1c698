import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { AttemptLog, Ledger } from '@queueport/ledger';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWebhookSender,
  type DeliveryOutcome,
  type DeliveryReport,
  DeliveryWorker,
  type Destination,
  type WebhookSender,
} from '../src';
import { attemptOf, errorClassOf } from '../src/worker/attempt-record';
import { destination, LOOPBACK_SSRF } from './helpers/fixtures';
import { answer, startServer, type TestServer } from './helpers/http-servers';
import { ledgerStores } from './helpers/ledger-stores';

const DAY_MS = 24 * 3600 * 1000;

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type AttemptLedger = Ledger & AttemptLog;

/** Each store's ledger for one test, removed after it. */
const stores = ledgerStores('attempt_log').map(
  ([name, open]): [string, (clock: VirtualClock) => Promise<AttemptLedger>] => [
    name,
    async (clock) => {
      const { ledger, dispose } = await open(clock);
      closers.push(dispose);
      return ledger;
    },
  ],
);

function sender(): WebhookSender {
  const created = createWebhookSender({ requestTimeoutMs: 10_000, ssrf: LOOPBACK_SSRF });
  closers.push(() => created.close());
  return created;
}

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  closers.push(() => started.close());
  return started;
}

/** Publishes one event and has the worker process it `times` times, a day apart (past any retry delay). */
async function deliver(
  ledger: AttemptLedger,
  clock: VirtualClock,
  target: Destination,
  times: number,
): Promise<{ reports: DeliveryReport[]; settledAt: number[] }> {
  const queue = new Queue(new MemoryDriver({ clock }), { clock });
  closers.push(() => queue.close());
  const reports: DeliveryReport[] = [];
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender: sender(),
    clock,
    route: () => target,
    onReport: (report) => reports.push(report),
  });
  await queue.publish({
    envelope: { event_id: 'pay_1:settled', type: 'payment.settled', payload: { n: 1 } },
  });
  const settledAt: number[] = [];
  for (let round = 0; round < times; round++) {
    if (round > 0) await clock.advance(DAY_MS);
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    await worker.process(delivery!);
    settledAt.push(clock.now());
  }
  return { reports, settledAt };
}

describe.each(stores)('the worker on a %s ledger logs every attempt', (_name, open) => {
  it('a receiver that answers 503 twice, then 200: three attempts, in order, with their fields', async () => {
    let calls = 0;
    const receiver = await server((_request, res) => {
      calls++;
      if (calls <= 2) answer(res, 503, {}, `overloaded ${calls}`);
      else answer(res, 200, {}, 'thanks');
    });
    const clock = new VirtualClock();
    const ledger = await open(clock);
    const { reports, settledAt } = await deliver(ledger, clock, destination(receiver.url), 3);
    expect(reports.map((report) => report.result)).toEqual([
      'retry-scheduled',
      'retry-scheduled',
      'delivered',
    ]);

    const attempts = await ledger.listAttempts({ eventId: 'pay_1:settled', limit: 10 });
    expect(attempts.map((each) => each.statusCode)).toEqual([503, 503, 200]);
    expect(attempts).toEqual(
      reports.map((report, index) => ({
        eventId: 'pay_1:settled',
        attempt: index + 1,
        // The virtual clock stands still during the send: the attempt began its duration before.
        startedAt: settledAt[index]! - report.outcome!.attemptMs,
        durationMs: report.outcome!.attemptMs,
        outcome: index < 2 ? 'retry' : 'delivered',
        statusCode: index < 2 ? 503 : 200,
        errorClass: index < 2 ? 'http' : null,
        ambiguous: false,
        responseSample: { body: index < 2 ? `overloaded ${index + 1}` : 'thanks', truncated: false },
        destinationId: 'dest-1',
      })),
    );
    expect(await ledger.get('pay_1:settled')).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it("keeps a destination header's secret out of the logged response sample, echoed or not", async () => {
    const secret = 'sk_live_9f8e7d6c5b4a39281706';
    const receiver = await server((request, res) => {
      // A receiver that echoes what it got, our Authorization-like header included.
      answer(res, 503, {}, `you sent ${JSON.stringify(request.headers)}`);
    });
    const clock = new VirtualClock();
    const ledger = await open(clock);
    await deliver(ledger, clock, destination(receiver.url, { headers: { 'x-api-key': secret } }), 1);
    expect(receiver.received[0]?.headers['x-api-key']).toBe(secret);

    const [logged] = await ledger.listAttempts({ eventId: 'pay_1:settled', limit: 10 });
    expect(logged?.responseSample?.body).toContain('"x-api-key":"[REDACTED]"');
    expect(JSON.stringify(logged)).not.toContain(secret);
  });
});

describe('the attempt the worker builds from an outcome', () => {
  const now = 1_000_000;
  const outcome = (value: Partial<DeliveryOutcome> & Pick<DeliveryOutcome, 'kind'>) =>
    ({ attemptMs: 10, reason: '', ...value }) as DeliveryOutcome;

  const classifies = (given: DeliveryOutcome, expected: string | null) => {
    const status = 'status' in given ? (given.status ?? null) : null;
    expect(errorClassOf(given, status)).toBe(expected);
    expect(attemptOf(given, undefined, now).errorClass).toBe(expected);
  };

  it.each([
    ['delivered', outcome({ kind: 'delivered', status: 204 }), null],
    ['a 503', outcome({ kind: 'retry', status: 503, reason: 'http 503' }), 'http'],
    ['a 410', outcome({ kind: 'disable', status: 410, reason: 'http 410: gone' }), 'http'],
    [
      'no destination',
      outcome({ kind: 'terminal', reason: 'no destination for this event', attemptMs: 0 }),
      'unroutable',
    ],
    [
      'a disabled destination',
      outcome({ kind: 'terminal', reason: 'destination d1 is disabled', attemptMs: 0 }),
      'disabled',
    ],
    ['an SSRF refusal', outcome({ kind: 'terminal', reason: 'refused', refusal: {} as never }), 'refused'],
  ])('classifies %s', (_what, given, expected) => classifies(given, expected));

  // A retry without a status is classified by the sender's reason alone.
  it.each([
    ['a request timeout', 'request timeout after 300 ms, after the request was sent', 'timeout'],
    ['a headers timeout', 'headers timeout (UND_ERR_HEADERS_TIMEOUT)', 'timeout'],
    ['a connect timeout', 'connect timeout (UND_ERR_CONNECT_TIMEOUT)', 'connect'],
    ['a refused connection', 'connection refused (ECONNREFUSED)', 'connect'],
    ['a failed lookup', 'host not found (ENOTFOUND)', 'connect'],
    ['a bad certificate', 'network error: DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'tls'],
    ['a reset', 'connection reset (ECONNRESET), after the request was sent', 'network'],
  ])('classifies %s', (_what, reason, expected) => classifies(outcome({ kind: 'retry', reason }), expected));

  it('rounds and drops what the ledger would refuse from a custom sender, so the settle still lands', () => {
    const odd = outcome({ kind: 'retry', status: 42, reason: 'odd', attemptMs: 12.6 });
    expect(attemptOf(odd, { id: 'bad\nid', url: 'https://x.example' }, now)).toEqual({
      startedAt: now - 13,
      durationMs: 13,
      statusCode: null,
      errorClass: 'network',
      responseSample: null,
      destinationId: null,
    });
    expect(
      attemptOf(outcome({ kind: 'delivered', status: 200, attemptMs: Number.NaN }), undefined, 5),
    ).toMatchObject({
      startedAt: 5,
      durationMs: 0,
    });
  });
});
