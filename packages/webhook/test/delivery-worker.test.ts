import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isQueueError, payloadDigest, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import {
  createWebhookSender,
  DEFAULT_RETRY_SCHEDULE,
  DeliveryWorker,
  type DeliveryWorkerOptions,
  DestinationRegistry,
  type WebhookSender,
} from '@queueport/webhook';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const envelope = (payload: Record<string, number> = { amount: 4200 }) => ({
  event_id: 'payment_8472:settled:v3',
  type: 'payment.settled',
  payload,
});

describe('DeliveryWorker', () => {
  let clock: VirtualClock;
  let driver: MemoryDriver;
  let queue: Queue;
  let ledger: Ledger;
  let filename: string;
  let sender: WebhookSender;
  let receiver: ReferenceReceiver;
  let statuses: number[];

  beforeEach(async () => {
    clock = new VirtualClock();
    driver = new MemoryDriver({ clock });
    queue = new Queue(driver, { clock });
    filename = join(tmpdir(), `queueport-worker-${crypto.randomUUID()}.sqlite`);
    ledger = await openSqliteLedger({ filename, clock });
    sender = createWebhookSender({ ssrf: { allowHttp: true, allowLoopback: true }, requestTimeoutMs: 5_000 });
    statuses = [];
    receiver = await startReferenceReceiver({ mode: 'idempotent', respond: () => statuses.shift() ?? 200 });
  });

  afterEach(async () => {
    await queue.close();
    await sender.close();
    await receiver.close();
    await ledger.close();
    await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${filename}${s}`, { force: true })));
  });

  const worker = (options: Partial<DeliveryWorkerOptions> = {}) =>
    new DeliveryWorker({
      queue,
      ledger,
      sender,
      clock,
      route: () => ({ id: 'receiver', url: receiver.url }),
      ...options,
    });

  const receiveOne = async () => {
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    if (!delivery) throw new Error('expected a delivery');
    return delivery;
  };

  it('claims, sends, commits, then acks; a redelivered duplicate is acked without a second send', async () => {
    const w = worker();
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('delivered');
    expect((await ledger.get('payment_8472:settled:v3'))?.state).toBe('delivered');
    expect(driver.depth()).toBe(0);

    await clock.advance(301_000); // past the queue's dedupe window: the queue delivers it again
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('already-settled');
    expect(receiver.requests()).toBe(1);
    expect(receiver.effectCount('payment_8472:settled:v3')).toBe(1);
    expect(driver.depth()).toBe(0);
  });

  it('leaves an event another worker holds for redelivery after that lease', async () => {
    await queue.publish({ envelope: envelope() });
    await ledger.claim({
      eventId: 'payment_8472:settled:v3',
      payloadSha256: payloadDigest({ amount: 4200 }),
      owner: 'someone-else',
      leaseSeconds: 60,
    });
    const w = worker();
    expect(await w.process(await receiveOne())).toBe('busy');
    expect(await queue.receive()).toEqual([]);
    await clock.advance(60_000);
    expect(await queue.receive({ leaseSeconds: 30 })).toHaveLength(1);
    expect(receiver.requests()).toBe(0);
  });

  it('refuses the same event id with a different payload and parks it in the dead letters', async () => {
    const w = worker();
    await queue.publish({ envelope: envelope({ amount: 4200 }) });
    await w.process(await receiveOne());
    await clock.advance(301_000);
    await queue.publish({ envelope: envelope({ amount: 9900 }) });
    expect(await w.process(await receiveOne())).toBe('conflict');
    expect(driver.deadLetters().map((d) => d.eventId)).toEqual(['payment_8472:settled:v3']);
    const record = await ledger.get('payment_8472:settled:v3');
    expect(record?.state).toBe('delivered');
    expect(record?.attempts).toBe(1);
    expect(receiver.requests()).toBe(1);
  });

  it('schedules a retry on 503 and delivers on the next attempt with the same key', async () => {
    statuses = [503];
    const w = worker({
      retry: { ...DEFAULT_RETRY_SCHEDULE, maxAttempts: 5, baseMs: 10_000, maxMs: 10_000, jitter: 0 },
    });
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('retry-scheduled');
    expect((await ledger.get('payment_8472:settled:v3'))?.state).toBe('processing');
    expect(await queue.receive()).toEqual([]);
    await clock.advance(10_000);
    expect(await w.process(await receiveOne())).toBe('delivered');
    expect(receiver.effectCount('payment_8472:settled:v3')).toBe(1);
    expect((await ledger.get('payment_8472:settled:v3'))?.attempts).toBe(2);
  });

  it('treats 409 (same key still in progress) as retryable, never as final', async () => {
    statuses = [409];
    const w = worker();
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('retry-scheduled');
  });

  it('gives up after the schedule runs out and records the failure', async () => {
    statuses = [500, 500];
    const w = worker({
      retry: { ...DEFAULT_RETRY_SCHEDULE, maxAttempts: 2, baseMs: 1_000, maxMs: 1_000, jitter: 0 },
    });
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('retry-scheduled');
    await clock.advance(1_000);
    expect(await w.process(await receiveOne())).toBe('failed');
    const record = await ledger.get('payment_8472:settled:v3');
    expect(record?.state).toBe('failed');
    expect(record?.lastOutcome).toMatch(/gave up after 2 attempts/);
    expect(driver.deadLetters()).toHaveLength(1);
  });

  it('disables a destination that answers 410, tells its owner, and parks the event instead of failing it', async () => {
    statuses = [410];
    const notices: string[] = [];
    const registry = new DestinationRegistry({ onDisabled: (n) => void notices.push(n.destination.id) });
    const destination = { id: 'receiver', url: receiver.url };
    registry.register(destination);
    const w = worker({ registry, route: () => destination });
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('parked');
    expect(registry.isDisabled('receiver')).toBe(true);
    expect(notices).toEqual(['receiver']);
    expect((await ledger.get('payment_8472:settled:v3'))?.state).toBe('processing');
    expect(driver.depth()).toBe(0);
  });

  it('without destination state (destinations: false), a 410 still fails the event, as before', async () => {
    statuses = [410];
    const registry = new DestinationRegistry();
    const destination = { id: 'receiver', url: receiver.url };
    registry.register(destination);
    const w = worker({ registry, route: () => destination, destinations: false });
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('failed');
    expect(registry.isDisabled('receiver')).toBe(true);
    expect((await ledger.get('payment_8472:settled:v3'))?.state).toBe('failed');
  });

  it('refuses a ledger lease that does not outlast the request timeout plus the margin', () => {
    let error: unknown;
    try {
      worker({ ledgerLeaseSeconds: 6, leaseMarginSeconds: 5 });
    } catch (caught) {
      error = caught;
    }
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(String((error as Error).message)).toMatch(/must outlast the request timeout/);
    expect(() => worker({ ledgerLeaseSeconds: 10, leaseMarginSeconds: 5 })).not.toThrow();
  });

  it('runs as a consumer: each event delivered once, the consumer does not settle twice', async () => {
    const realQueue = new Queue(new MemoryDriver());
    const realLedgerFile = join(tmpdir(), `queueport-worker-${crypto.randomUUID()}.sqlite`);
    const realLedger = await openSqliteLedger({ filename: realLedgerFile });
    try {
      const w = new DeliveryWorker({
        queue: realQueue,
        ledger: realLedger,
        sender,
        route: () => ({ id: 'receiver', url: receiver.url }),
      });
      const ids = ['a', 'b', 'c', 'd'].map((s) => `ticket_${s}:opened:v1`);
      await realQueue.publishBatch(ids.map((id) => ({ envelope: { ...envelope(), event_id: id } })));
      const consumer = w.start({ concurrency: 2, waitSeconds: 0.1 });
      for (let i = 0; i < 200 && receiver.effectTotal() < ids.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await consumer.close();
      expect(ids.map((id) => receiver.effectCount(id))).toEqual([1, 1, 1, 1]);
      expect(consumer.stats.errors).toBe(0);
      for (const id of ids) expect((await realLedger.get(id))?.state).toBe('delivered');
    } finally {
      await realQueue.close();
      await realLedger.close();
      await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${realLedgerFile}${s}`, { force: true })));
    }
  });
});
