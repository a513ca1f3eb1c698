import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payloadDigest, Queue, QueueError } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import {
  createWebhookSender,
  DEFAULT_RETRY_SCHEDULE,
  DELIVERY_WORKER_EVENT_NAMES,
  DeliveryWorker,
  type DeliveryWorkerEvents,
  type DeliveryWorkerOptions,
  type WebhookSender,
} from '@queueport/webhook';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const EVENT_ID = 'payment_8472:settled:v3';
const envelope = () => ({ event_id: EVENT_ID, type: 'payment.settled', payload: { amount: 4200 } });

interface Entry {
  name: keyof DeliveryWorkerEvents & string;
  payload: DeliveryWorkerEvents[keyof DeliveryWorkerEvents];
}

/** Records the worker's events, the problem ones included. */
function record(worker: DeliveryWorker): Entry[] {
  const log: Entry[] = [];
  for (const name of DELIVERY_WORKER_EVENT_NAMES)
    worker.on(name, (payload) => void log.push({ name, payload }));
  return log;
}
const namesOf = (log: readonly Entry[]) => log.map((entry) => entry.name);
function payloadOf<K extends keyof DeliveryWorkerEvents & string>(log: readonly Entry[], name: K, index = 0) {
  const found = log.filter((entry) => entry.name === name)[index];
  if (!found) throw new Error(`no ${name} event #${index}; got ${namesOf(log).join(', ')}`);
  return found.payload as DeliveryWorkerEvents[K];
}

function tracked(promise: Promise<unknown>) {
  const state = { settled: false };
  const settle = () => {
    state.settled = true;
  };
  promise.then(settle, settle);
  return state;
}

/**
 * A sender whose every request hangs, as with a receiver that accepts the connection and never
 * answers; `signals` keeps the signal each send was given.
 */
function hangingSender(): WebhookSender & { started: number; signals: Array<AbortSignal | undefined> } {
  return {
    started: 0,
    signals: [],
    requestTimeoutMs: 1_000,
    send(_request, signal) {
      this.started++;
      this.signals.push(signal);
      return new Promise(() => {});
    },
    close: async () => {},
  };
}

describe('DeliveryWorker events', () => {
  let clock: VirtualClock;
  let memory: MemoryDriver;
  let queue: Queue;
  let ledger: Ledger;
  let filename: string;
  let sender: WebhookSender;
  let receiver: ReferenceReceiver;
  let statuses: number[];
  const workers: DeliveryWorker[] = [];

  /** Moves the virtual clock in small steps, with real time for the HTTP in between, until `check` holds. */
  async function until(check: () => boolean, what: string, stepMs = 50) {
    for (let i = 0; i < 1_000; i++) {
      if (check()) return;
      await clock.advance(stepMs);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`gave up waiting for ${what}`);
  }

  function openQueue(driver: Driver = memory) {
    queue = new Queue(driver, { clock, logger: { warn: vi.fn() } });
    return queue;
  }

  beforeEach(async () => {
    clock = new VirtualClock();
    memory = new MemoryDriver({ clock });
    openQueue();
    filename = join(tmpdir(), `queueport-worker-events-${crypto.randomUUID()}.sqlite`);
    ledger = await openSqliteLedger({ filename, clock });
    sender = createWebhookSender({ ssrf: { allowHttp: true, allowLoopback: true }, requestTimeoutMs: 5_000 });
    statuses = [];
    receiver = await startReferenceReceiver({ mode: 'idempotent', respond: () => statuses.shift() ?? 200 });
  });

  afterEach(async () => {
    for (const w of workers.splice(0)) {
      const closing = w.close({ timeoutMs: 0 });
      const state = tracked(closing);
      for (let i = 0; !state.settled && i < 100; i++) await clock.advance(100);
      await closing;
    }
    await queue.close({ timeoutMs: 0 });
    await sender.close();
    await receiver.close();
    await ledger.close();
    await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${filename}${s}`, { force: true })));
  });

  const worker = (options: Partial<DeliveryWorkerOptions> = {}) => {
    const made = new DeliveryWorker({
      queue,
      ledger,
      sender,
      clock,
      route: () => ({ id: 'receiver', url: receiver.url }),
      ...options,
    });
    workers.push(made);
    return made;
  };

  const receiveOne = async () => {
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    if (!delivery) throw new Error('expected a delivery');
    return delivery;
  };

  it('started: received (from its consumer), acked, report, drained; closed by worker.close()', async () => {
    const onReport = vi.fn();
    const w = worker({ onReport });
    const log = record(w);
    w.start();
    await queue.publish({ envelope: envelope() });
    await until(() => namesOf(log).includes('drained') && namesOf(log).includes('report'), 'the delivery');
    await w.close();

    expect(namesOf(log)).toEqual([
      'receiving',
      'received',
      'acked',
      'report',
      'drained',
      'closing',
      'closed',
    ]);
    expect(payloadOf(log, 'received').delivery.envelope.event_id).toBe(EVENT_ID);
    expect(payloadOf(log, 'acked').result).toBe('delivered');
    expect(payloadOf(log, 'report')).toMatchObject({ eventId: EVENT_ID, result: 'delivered', attempt: 1 });
    expect(onReport).toHaveBeenCalledWith(payloadOf(log, 'report'));
    expect(payloadOf(log, 'closed')).toEqual({ abandoned: 0 });
    expect(receiver.effectCount(EVENT_ID)).toBe(1);
  });

  it('a retry outcome: retry with the attempt and delay, then released (retry-scheduled)', async () => {
    statuses = [503];
    const w = worker({
      retry: { ...DEFAULT_RETRY_SCHEDULE, maxAttempts: 5, baseMs: 10_000, maxMs: 10_000, jitter: 0 },
    });
    const log = record(w);
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('retry-scheduled');
    expect(namesOf(log)).toEqual(['retry', 'released', 'report']);
    expect(payloadOf(log, 'retry')).toMatchObject({
      eventId: EVENT_ID,
      attempt: 1,
      delayMs: 10_000,
      outcome: { kind: 'retry' },
    });
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'retry-scheduled', delaySeconds: 10 });
  });

  it('busy: released until the other lease ends', async () => {
    await queue.publish({ envelope: envelope() });
    await ledger.claim({
      eventId: EVENT_ID,
      payloadSha256: payloadDigest({ amount: 4200 }),
      owner: 'someone-else',
      leaseSeconds: 60,
    });
    const w = worker();
    const log = record(w);
    expect(await w.process(await receiveOne())).toBe('busy');
    expect(namesOf(log)).toEqual(['released', 'report']);
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'busy', delaySeconds: 60 });
  });

  it('a conflict: dead-lettered to the dead letters; an event settled earlier: acked (already-settled)', async () => {
    const w = worker();
    const log = record(w);
    await queue.publish({ envelope: envelope() });
    await w.process(await receiveOne());
    await clock.advance(301_000);
    await queue.publish({ envelope: { ...envelope(), payload: { amount: 9900 } } });
    expect(await w.process(await receiveOne())).toBe('conflict');
    expect(payloadOf(log, 'dead-lettered')).toMatchObject({ to: 'dead-letters' });
    expect(payloadOf(log, 'dead-lettered').reason).toContain('different payload');
    expect(payloadOf(log, 'dead-lettered').delivery.envelope.event_id).toBe(EVENT_ID);

    await clock.advance(301_000);
    await queue.publish({ envelope: envelope() });
    expect(await w.process(await receiveOne())).toBe('already-settled');
    expect(payloadOf(log, 'acked', 1).result).toBe('already-settled');
  });

  it('close({ timeoutMs }) does not wait past its bound for a send that hangs; the message comes back at once', async () => {
    const hanging = hangingSender();
    const w = worker({ sender: hanging });
    const log = record(w);
    w.start({ leaseSeconds: 60 });
    await queue.publish({ envelope: envelope() });
    await until(() => hanging.started === 1, 'the send to start');

    const closing = w.close({ timeoutMs: 3_000 });
    const state = tracked(closing);
    await clock.advance(2_999);
    expect(state.settled).toBe(false);
    await clock.advance(1);
    expect(state.settled).toBe(true);
    await closing;
    expect(namesOf(log)).toEqual(['receiving', 'received', 'closing', 'released', 'closed']);
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'closing', delaySeconds: 0 });
    expect(payloadOf(log, 'closed')).toEqual({ abandoned: 1 });

    const again = await receiveOne();
    expect(again.envelope.event_id).toBe(EVENT_ID);
    expect(again.receiveCount).toBe(2);
    // The ledger still holds the hung attempt's lease: the next worker leaves the event alone until it ends.
    expect(await worker().process(again)).toBe('busy');
  });

  it('handlerTimeoutMs: a hung send is cut short, failed by the consumer policy, and released', async () => {
    const hanging = hangingSender();
    const w = worker({ sender: hanging });
    const log = record(w);
    w.start({ handlerTimeoutMs: 2_000, retry: { baseMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await queue.publish({ envelope: envelope() });
    await until(() => namesOf(log).includes('released'), 'the timeout');
    expect(namesOf(log).slice(0, 5)).toEqual([
      'receiving',
      'received',
      'handler-timeout',
      'handler-failed',
      'released',
    ]);
    expect(payloadOf(log, 'handler-timeout')).toMatchObject({ timeoutMs: 2_000 });
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'handler-timeout', delaySeconds: 60 });
    // The request itself is aborted, not only abandoned: the sender was given the handler's signal.
    expect(hanging.signals).toHaveLength(1);
    expect(hanging.signals[0]?.aborted).toBe(true);
  });

  it('an error its consumer emits is logged once by the worker when nothing listens, and not when onError does', async () => {
    const failing: Driver = {
      name: 'broken',
      capabilities: memory.capabilities,
      publish: (messages) => memory.publish(messages),
      receive: async () => {
        throw new QueueError('UNAUTHORIZED', 'the provider refused the credentials');
      },
      ack: (receipts) => memory.ack(receipts),
      release: (entries) => memory.release(entries),
      extendLease: (entries) => memory.extendLease(entries),
      deadLetter: (entries) => memory.deadLetter(entries),
      close: () => memory.close(),
    };
    openQueue(failing);
    const warn = vi.fn();
    const w = worker({ logger: { warn }, workerId: 'w1' });
    const consumer = w.start();
    await until(() => consumer.stats.errors >= 3, 'three failed receives', 1_000);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain(
      `delivery worker w1: nothing listens to 'error' (receive)`,
    );

    const quiet = vi.fn();
    const onError = vi.fn();
    const heard = worker({ logger: { warn: quiet } }).start({ onError });
    await until(() => heard.stats.errors >= 2, 'two failed receives', 1_000);
    expect(onError).toHaveBeenCalled();
    expect(quiet).not.toHaveBeenCalled();
  });
});
