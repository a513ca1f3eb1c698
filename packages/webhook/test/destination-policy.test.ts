import { isQueueError, Queue, systemClock } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertDestination,
  createWebhookSender,
  type DeliveryResult,
  DeliveryWorker,
  type DeliveryWorkerEvents,
  type DeliveryWorkerOptions,
  type Destination,
  DestinationRegistry,
  resumeDestination,
  type WebhookSender,
} from '../src';
import { LOOPBACK_SSRF } from './helpers/fixtures';
import { answer, startServer, type TestServer } from './helpers/http-servers';
import { ledgerStores, type OpenedLedger } from './helpers/ledger-stores';

const LEDGERS = ledgerStores('dest_policy');

/** A receiver that answers what `status` says, after `holdMs`, and keeps what it saw in order. */
interface Receiver {
  server: TestServer;
  url: string;
  /** Event ids in the order their requests arrived, with the status each got. */
  seen: { eventId: string; status: number; path: string }[];
  maxInFlight: number;
  status: (eventId: string) => number;
  holdMs: number;
}

async function startReceiver(): Promise<Receiver> {
  let inFlight = 0;
  const receiver = {
    seen: [],
    maxInFlight: 0,
    status: () => 200,
    holdMs: 0,
  } as unknown as Receiver;
  receiver.server = await startServer(async (request, res) => {
    inFlight++;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, inFlight);
    const eventId = (JSON.parse(request.body) as { event_id: string }).event_id;
    const hold = request.path.startsWith('/slow') ? 1_500 : receiver.holdMs;
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    const status = receiver.status(eventId);
    receiver.seen.push({ eventId, status, path: request.path });
    inFlight--;
    answer(res, status);
  });
  receiver.url = receiver.server.url;
  return receiver;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `order_${i + 1}:placed`);
const envelopeOf = (eventId: string) => ({ event_id: eventId, type: 'order.placed', payload: { eventId } });

describe.each(LEDGERS)('per-destination policy, memory queue × %s ledger', (_name, open) => {
  let clock: VirtualClock;
  let queue: Queue;
  let opened: OpenedLedger;
  let ledger: OpenedLedger['ledger'];
  let sender: WebhookSender;
  let receiver: Receiver;

  beforeEach(async () => {
    clock = new VirtualClock(1_700_000_000_000);
    queue = new Queue(new MemoryDriver({ clock }), { clock });
    opened = await open(clock);
    ledger = opened.ledger;
    sender = createWebhookSender({ ssrf: LOOPBACK_SSRF, requestTimeoutMs: 5_000 });
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await queue.close();
    await sender.close();
    await receiver.server.close();
    await opened.dispose();
  });

  const worker = (destination: Destination, options: Partial<DeliveryWorkerOptions> = {}) =>
    new DeliveryWorker({
      queue,
      ledger,
      sender,
      clock,
      route: () => destination,
      destinationRefreshMs: 0,
      ...options,
    });

  /** Processes what the queue holds now, one at a time, a millisecond apart (so each comes due in turn). */
  async function drain(w: DeliveryWorker): Promise<[string, DeliveryResult][]> {
    const results: [string, DeliveryResult][] = [];
    for (;;) {
      const [delivery] = await queue.receive({ leaseSeconds: 30 });
      if (!delivery) return results;
      results.push([delivery.envelope.event_id, await w.process(delivery)]);
      await clock.advance(1);
    }
  }

  const publish = async (eventIds: readonly string[]) => {
    for (const eventId of eventIds) await queue.publish({ envelope: envelopeOf(eventId) });
  };

  it('disables a failing destination, parks its events unsent, and delivers each exactly once, in due order, when resumed', async () => {
    let failing = true;
    receiver.status = () => (failing ? 503 : 200);
    const acme: Destination = {
      id: 'acme',
      url: receiver.url,
      retry: { maxAttempts: 10, baseMs: 1_000, maxMs: 1_000, jitter: 0 },
      disableAfter: { consecutiveFailures: 3 },
    };
    const w = worker(acme);
    const disabled: DeliveryWorkerEvents['destination.disabled'][] = [];
    w.on('destination.disabled', (event) => void disabled.push(event));
    const events = ids(6);
    await publish(events);

    expect(await drain(w)).toEqual([
      [events[0], 'retry-scheduled'],
      [events[1], 'retry-scheduled'],
      // The third failure in a row crosses the bound: this one is parked, and so is every later one.
      [events[2], 'parked'],
      [events[3], 'parked'],
      [events[4], 'parked'],
      [events[5], 'parked'],
    ]);
    expect(disabled).toEqual([
      {
        destinationId: 'acme',
        reason: expect.stringMatching(/^3 consecutive failed sends .*http 503/),
        at: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(disabled)).not.toContain(receiver.url);
    // The two retries come back while it is disabled: parked too, and nothing more is sent.
    await clock.advance(1_000);
    expect((await drain(w)).map(([, result]) => result)).toEqual(['parked', 'parked']);
    expect(receiver.seen).toHaveLength(3);
    expect(disabled).toHaveLength(1);
    expect(await ledger.destinations.get('acme')).toMatchObject({ disabled: true, parked: 6 });
    expect(await queue.receive()).toEqual([]);
    // Parked is not stuck: reconciliation leaves them alone while the destination is disabled.
    await clock.advance(3_600_000);
    expect(await ledger.scanPending({ olderThanSeconds: 60, limit: 100 })).toEqual([]);

    failing = false;
    const sent = receiver.seen.length;
    const resumed = await resumeDestination({ ledger, queue, destinationId: 'acme', batchSize: 4 });
    expect(resumed).toMatchObject({
      enabled: true,
      republished: 6,
      settled: 0,
      remaining: 0,
      complete: true,
    });
    expect(await ledger.destinations.get('acme')).toMatchObject({ disabled: false, parked: 0 });
    expect((await drain(w)).map(([, result]) => result)).toEqual(Array(6).fill('delivered'));

    const after = receiver.seen.slice(sent);
    // Due order: when each first came due (its first claim), not when it was parked.
    expect(after.map((s) => s.eventId)).toEqual(events);
    for (const eventId of events) {
      expect(
        receiver.seen.filter((s) => s.eventId === eventId && s.status === 200),
        eventId,
      ).toHaveLength(1);
      expect((await ledger.get(eventId))?.state, eventId).toBe('delivered');
    }
    // Parking counted no attempt: the tripping send did count, the later events had only this one.
    expect((await ledger.get(events[2]!))?.attempts).toBe(2);
    expect((await ledger.get(events[5]!))?.attempts).toBe(1);
    expect(disabled).toHaveLength(1);
  });

  describe('the attempt log on the park path', () => {
    const attemptsOf = (eventId: string) => ledger.listAttempts({ eventId, limit: 10 });

    it('records the 410 that disabled the destination, under its claim, beside the attempt that delivers it after the resume', async () => {
      let gone = true;
      receiver.status = () => (gone ? 410 : 200);
      const w = worker({ id: 'acme', url: receiver.url });
      const [eventId] = ids(1);
      await publish([eventId!]);
      expect(await drain(w)).toEqual([[eventId, 'parked']]);
      expect(await attemptsOf(eventId!)).toEqual([
        {
          eventId,
          attempt: 1,
          startedAt: expect.any(Number),
          durationMs: expect.any(Number),
          // Not 'failed': a parked event is sent again once its destination is resumed.
          outcome: 'retry',
          statusCode: 410,
          errorClass: 'http',
          ambiguous: false,
          responseSample: expect.anything(),
          destinationId: 'acme',
        },
      ]);

      gone = false;
      await clock.advance(301_000);
      await resumeDestination({ ledger, queue, destinationId: 'acme' });
      expect(await drain(w)).toEqual([[eventId, 'delivered']]);
      expect((await attemptsOf(eventId!)).map((a) => [a.attempt, a.outcome, a.statusCode])).toEqual([
        [1, 'retry', 410],
        [2, 'delivered', 200],
      ]);
    });

    it('records the failure that crossed disableAfter, the one the park counted', async () => {
      receiver.status = () => 503;
      const w = worker({ id: 'acme', url: receiver.url, disableAfter: { consecutiveFailures: 2 } });
      const [first, second] = ids(2);
      await publish([first!, second!]);
      expect(await drain(w)).toEqual([
        [first, 'retry-scheduled'],
        [second, 'parked'],
      ]);
      expect((await ledger.get(second!))?.attempts).toBe(1);
      expect(await attemptsOf(second!)).toEqual([
        expect.objectContaining({
          eventId: second,
          attempt: 1,
          outcome: 'retry',
          statusCode: 503,
          errorClass: 'http',
          destinationId: 'acme',
        }),
      ]);
    });

    it('records nothing for a park of a destination disabled already: no send, no attempt', async () => {
      const w = worker({ id: 'acme', url: receiver.url });
      await ledger.destinations.disable({ destinationId: 'acme', reason: 'by hand' });
      const [eventId] = ids(1);
      await publish([eventId!]);
      expect(await drain(w)).toEqual([[eventId, 'parked']]);
      expect(receiver.seen).toEqual([]);
      expect(await attemptsOf(eventId!)).toEqual([]);
    });

    it('records nothing for a park the store refuses: the destination enabled, or the lease lost', async () => {
      const eventId = 'evt_refused';
      await ledger.claim({ eventId, payloadSha256: 'a'.repeat(64), owner: 'w1', leaseSeconds: 30 });
      const park = {
        eventId,
        owner: 'w1',
        destinationId: 'acme',
        body: JSON.stringify(envelopeOf(eventId)),
        attemptMade: true,
        outcome: 'http 410',
        attempt: { startedAt: clock.now(), durationMs: 12, statusCode: 410, errorClass: 'http' },
      };
      expect(await ledger.destinations.park(park)).toEqual({ status: 'enabled' });
      await ledger.destinations.disable({ destinationId: 'acme', reason: 'by hand' });
      const lost = await ledger.destinations.park({ ...park, owner: 'w2' }).catch((error: unknown) => error);
      expect(isQueueError(lost, 'LEASE_LOST')).toBe(true);
      // A claim un-counted has no number of its own to file an attempt under.
      const unmade = await ledger.destinations
        .park({ ...park, attemptMade: false })
        .catch((error: unknown) => error);
      expect(isQueueError(unmade, 'INVALID_ARGUMENT')).toBe(true);
      expect((unmade as { details: { field: string } }).details.field).toBe('attempt');
      expect(await attemptsOf(eventId)).toEqual([]);

      expect((await ledger.destinations.park(park)).status).toBe('parked');
      expect(await attemptsOf(eventId)).toEqual([
        expect.objectContaining({ attempt: 1, outcome: 'retry', statusCode: 410, durationMs: 12 }),
      ]);
    });
  });

  it("waits for the queue's dedupe window before republishing an event parked within it", async () => {
    // As SQS: a 5-minute window, and a repeat absorbed without a word.
    await queue.close();
    queue = new Queue(
      new MemoryDriver({ clock, dedupe: { kind: 'window', windowSeconds: 300, reportsDuplicates: false } }),
      { clock },
    );
    const acme: Destination = { id: 'acme', url: receiver.url };
    const w = worker(acme);
    await ledger.destinations.disable({ destinationId: 'acme', reason: 'by hand' });
    await publish(ids(2));
    expect((await drain(w)).map(([, r]) => r)).toEqual(['parked', 'parked']);
    expect(receiver.seen).toEqual([]);

    // Republished now, both would be absorbed, silently, and lost.
    const early = await resumeDestination({ ledger, queue, destinationId: 'acme', maxWaitMs: 0 });
    expect(early).toMatchObject({ enabled: true, republished: 0, remaining: 2, complete: false });
    expect(early.resumableAt).toBeGreaterThan(clock.now());
    expect(await queue.receive()).toEqual([]);

    // With time to wait, the resume waits for the window (on the queue's clock) and carries on.
    const lines: string[] = [];
    let finished = false;
    const resuming = resumeDestination({
      ledger,
      queue,
      destinationId: 'acme',
      progress: (l) => lines.push(l),
    });
    void resuming.finally(() => {
      finished = true;
    });
    for (let step = 0; step < 400 && !finished; step++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await clock.advance(1_000);
    }
    const later = await resuming;
    expect(later).toMatchObject({ enabled: false, republished: 2, remaining: 0, complete: true });
    expect(lines.some((line) => line.includes('waiting') && line.includes('dedupe window'))).toBe(true);
    expect(clock.now()).toBeGreaterThanOrEqual(early.resumableAt!);
    expect((await drain(w)).map(([, r]) => r)).toEqual(['delivered', 'delivered']);
    expect(receiver.seen.map((s) => s.eventId)).toEqual(ids(2));
  });

  it('parks for a destination disabled elsewhere, without a send; a park that finds it enabled again sends', async () => {
    const acme: Destination = { id: 'acme', url: receiver.url };
    // A worker that re-reads the state rarely: it still believes what it read first.
    const w = worker(acme, { destinationRefreshMs: 3_600_000 });
    await ledger.destinations.disable({ destinationId: 'acme', reason: 'by the CLI' });
    const [first, second] = ids(2);
    await publish([first!]);
    expect(await drain(w)).toEqual([[first, 'parked']]);
    expect(receiver.seen).toEqual([]);

    // Enabled without the worker knowing: the park re-checks in its transaction and sends instead.
    await ledger.destinations.enable('acme');
    await publish([second!]);
    expect(await drain(w)).toEqual([[second, 'delivered']]);
    expect(receiver.seen.map((s) => s.eventId)).toEqual([second]);
    // Enabling alone brought nothing back: the parked one waits for a resume.
    expect(await ledger.destinations.get('acme')).toMatchObject({ parked: 1 });
    await clock.advance(301_000);
    await resumeDestination({ ledger, queue, destinationId: 'acme' });
    expect(await drain(w)).toEqual([[first, 'delivered']]);
  });

  it('repeats the park after a crash between park and ack, and the event is still delivered once', async () => {
    const acme: Destination = { id: 'acme', url: receiver.url };
    let crash = true;
    const w = worker(acme, { crash: (point) => crash && point === 'before-ack' });
    await ledger.destinations.disable({ destinationId: 'acme', reason: 'by hand' });
    const [eventId] = ids(1);
    await publish([eventId!]);
    expect(await drain(w)).toEqual([[eventId, 'crashed']]);
    crash = false;
    await clock.advance(31_000);
    expect(await drain(w)).toEqual([[eventId, 'parked']]);
    const [parked] = await ledger.destinations.listParked({ destinationId: 'acme', limit: 10 });
    expect(parked).toMatchObject({ eventId, parkCount: 2 });
    expect((await ledger.get(eventId!))?.ambiguous).toBe(false);
    await clock.advance(301_000);
    await resumeDestination({ ledger, queue, destinationId: 'acme' });
    expect(await drain(w)).toEqual([[eventId, 'delivered']]);
    expect(receiver.seen.map((s) => s.eventId)).toEqual([eventId]);
  });

  it("holds sends back by the destination's rate limit before the claim, counting no attempt", async () => {
    const acme: Destination = { id: 'acme', url: receiver.url, rateLimit: { perSecond: 1, burst: 2 } };
    const w = worker(acme, { rateLimitWaitMs: 0 });
    const released: number[] = [];
    w.on('released', ({ cause, delaySeconds }) => {
      if (cause === 'rate-limited') released.push(delaySeconds);
    });
    const events = ids(5);
    await publish(events);
    const results: DeliveryResult[] = [];
    for (const delivery of await queue.receive({ maxMessages: 5, leaseSeconds: 30 })) {
      results.push(await w.process(delivery));
    }
    // The burst of two goes at once; the rest are released until their reserved turns.
    expect(results).toEqual(['delivered', 'delivered', 'rate-limited', 'rate-limited', 'rate-limited']);
    expect(released).toEqual([1, 2, 3]);
    expect(receiver.seen).toHaveLength(2);
    expect(await ledger.get(events[2]!)).toBeUndefined();
    for (let second = 1; second <= 3; second++) {
      await clock.advance(1_000);
      expect((await drain(w)).map(([, r]) => r)).toEqual(['delivered']);
      expect(receiver.seen).toHaveLength(2 + second);
    }
    for (const eventId of events) expect((await ledger.get(eventId))?.attempts, eventId).toBe(1);
  });

  it("follows the destination's own retry schedule over the worker's", async () => {
    receiver.status = () => 500;
    const acme: Destination = {
      id: 'acme',
      url: receiver.url,
      retry: { maxAttempts: 2, baseMs: 7_000, maxMs: 7_000, jitter: 0 },
    };
    const w = worker(acme, { retry: { maxAttempts: 15, baseMs: 1_000, jitter: 0 } });
    const delays: number[] = [];
    w.on('released', ({ cause, delaySeconds }) => {
      if (cause === 'retry-scheduled') delays.push(delaySeconds);
    });
    const [eventId] = ids(1);
    await publish([eventId!]);
    expect(await drain(w)).toEqual([[eventId, 'retry-scheduled']]);
    expect(delays).toEqual([7]);
    await clock.advance(7_000);
    expect(await drain(w)).toEqual([[eventId, 'failed']]);
    expect((await ledger.get(eventId!))?.lastOutcome).toMatch(/gave up after 2 attempts/);
  });

  it("cuts a send at the destination's own timeout, and refuses one longer than the sender's", async () => {
    const slow: Destination = { id: 'slow', url: receiver.url.replace('/hook', '/slow'), timeoutMs: 200 };
    const outcomes: string[] = [];
    const w = worker(slow);
    w.on(
      'report',
      (report) =>
        void (
          report.outcome &&
          outcomes.push(report.outcome.kind === 'delivered' ? 'delivered' : report.outcome.reason)
        ),
    );
    const [first, second] = ids(2);
    await publish([first!]);
    expect(await drain(w)).toEqual([[first, 'retry-scheduled']]);
    expect(outcomes).toEqual([expect.stringMatching(/^request timeout after 200 ms/)]);

    const tooLong: Destination = { id: 'long', url: receiver.url, timeoutMs: 10_000 };
    const w2 = worker(tooLong);
    await publish([second!]);
    expect(await drain(w2)).toEqual([[second, 'failed']]);
    expect((await ledger.get(second!))?.lastOutcome).toMatch(
      /timeoutMs 10000 is longer than the sender's requestTimeoutMs 5000/,
    );
    expect(receiver.seen.filter((s) => s.eventId === second)).toEqual([]);
    const registry = new DestinationRegistry({ requestTimeoutMs: sender.requestTimeoutMs });
    expect(() => registry.register(tooLong)).toThrow(/longer than the sender's requestTimeoutMs/);
    expect(() => registry.register({ ...tooLong, timeoutMs: 5_000 })).not.toThrow();
  });
});

describe.each(LEDGERS)(
  'per-destination concurrency, memory queue × %s ledger, a running worker',
  (_name, open) => {
    it('keeps at most `concurrency` sends in flight to the destination, whatever the worker runs at once', async () => {
      const queue = new Queue(new MemoryDriver());
      const { ledger, dispose } = await open(systemClock);
      const sender = createWebhookSender({ ssrf: LOOPBACK_SSRF, requestTimeoutMs: 5_000 });
      const receiver = await startReceiver();
      receiver.holdMs = 60;
      try {
        const w = new DeliveryWorker({
          queue,
          ledger,
          sender,
          route: () => ({ id: 'acme', url: receiver.url, concurrency: 2 }),
        });
        const events = ids(10);
        await queue.publishBatch(events.map((eventId) => ({ envelope: envelopeOf(eventId) })));
        const consumer = w.start({ concurrency: 8, waitSeconds: 0.1 });
        for (let i = 0; i < 500 && receiver.seen.length < events.length; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await consumer.close();
        expect(receiver.seen.map((s) => s.eventId).sort()).toEqual([...events].sort());
        expect(receiver.maxInFlight).toBeLessThanOrEqual(2);
      } finally {
        await queue.close();
        await sender.close();
        await receiver.server.close();
        await dispose();
      }
    });
  },
);

describe('destination policy: what a destination may say', () => {
  it.each([
    ['a rate of 0', { rateLimit: { perSecond: 0 } }, 'rateLimit.perSecond'],
    ['a burst of 0', { rateLimit: { perSecond: 1, burst: 0 } }, 'rateLimit.burst'],
    ['a concurrency of 0', { concurrency: 0 }, 'concurrency'],
    ['a fractional timeout', { timeoutMs: 1.5 }, 'timeoutMs'],
    ['a bound without its count', { disableAfter: { minFailingMs: 10 } }, 'disableAfter.consecutiveFailures'],
    ['an unknown bound', { disableAfter: { consecutiveFailures: 1, afterMs: 1 } }, 'disableAfter.afterMs'],
  ])('refuses %s, naming the field', (_what, extra, field) => {
    let error: unknown;
    try {
      assertDestination({ id: 'acme', url: 'https://example.com/hook', ...extra });
    } catch (caught) {
      error = caught;
    }
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as { details: { field: string } }).details.field).toBe(field);
  });

  it('takes a full policy', () => {
    expect(() =>
      assertDestination({
        id: 'acme',
        url: 'https://example.com/hook',
        timeoutMs: 2_000,
        concurrency: 4,
        rateLimit: { perSecond: 0.5, burst: 3 },
        disableAfter: { consecutiveFailures: 20, minFailingMs: 3_600_000 },
      }),
    ).not.toThrow();
  });
});
