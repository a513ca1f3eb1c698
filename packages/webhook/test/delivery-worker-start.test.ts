import { type Capabilities, DEFAULT_REDRIVE_AFTER_RECEIVES, Queue, QueueError } from '@queueport/core';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DeliveryOutcome,
  DeliveryWorker,
  type DeliveryWorkerEvents,
  type DeliveryWorkerOptions,
  type WebhookSender,
} from '../src';

/** A receiver that takes everything: the worker's sending is not what these tests look at. */
const acceptingSender: WebhookSender = {
  requestTimeoutMs: 1_000,
  send: async (): Promise<DeliveryOutcome> => ({ kind: 'delivered', status: 204, attemptMs: 1 }),
  close: async () => {},
};

/** A memory queue that, like Infrai, answers every receive at once: no long poll. */
class NoLongPollDriver extends MemoryDriver {
  constructor(options: MemoryDriverOptions) {
    super(options);
    (this as { capabilities: Capabilities }).capabilities = { ...this.capabilities, longPollMaxSeconds: 0 };
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workerOn(driver: MemoryDriver, options: Partial<DeliveryWorkerOptions> = {}) {
  const queue = new Queue(driver);
  const { ledger, dispose } = await temporarySqliteLedger(queue.clock);
  cleanups.push(async () => {
    await queue.close();
    await dispose();
  });
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender: acceptingSender,
    route: () => ({ id: 'receiver', url: 'https://hooks.example.com/in' }),
    ...options,
  });
  cleanups.push(() => worker.close({ timeoutMs: 1_000 }));
  return { queue, worker };
}

function nextEvent<K extends keyof DeliveryWorkerEvents & string>(
  worker: DeliveryWorker,
  name: K,
): Promise<DeliveryWorkerEvents[K]> {
  return new Promise((resolve) => worker.once(name, resolve));
}

describe('worker.start() says when the worker is receiving', () => {
  it("emits 'receiving' once, with its consumer, when the first receive of an empty queue is answered", async () => {
    const { worker } = await workerOn(new MemoryDriver());
    const order: string[] = [];
    for (const name of ['receiving', 'drained'] as const) worker.on(name, () => void order.push(name));
    const receiving = nextEvent(worker, 'receiving');
    const drained = nextEvent(worker, 'drained');
    const consumer = worker.start();
    expect((await receiving).consumer).toBe(consumer);
    await drained;
    expect(order.slice(0, 2)).toEqual(['receiving', 'drained']);
    expect(order.filter((name) => name === 'receiving')).toHaveLength(1);
  });

  it("emits 'receiving' before the first delivery is forwarded when messages wait", async () => {
    const { queue, worker } = await workerOn(new MemoryDriver());
    await queue.publish({ envelope: { event_id: 'evt_1', type: 'payment.settled', payload: {} } });
    await queue.publish({ envelope: { event_id: 'evt_2', type: 'payment.settled', payload: {} } });
    const order: string[] = [];
    for (const name of ['receiving', 'received', 'report'] as const)
      worker.on(name, () => void order.push(name));
    const reported = new Promise<void>((resolve) => {
      let reports = 0;
      worker.on('report', () => {
        if (++reports === 2) resolve();
      });
    });
    worker.start({ concurrency: 2 });
    await reported;
    expect(order[0]).toBe('receiving');
    expect(order.filter((name) => name === 'receiving')).toHaveLength(1);
  });

  it('one per start(): a second consumer announces itself too', async () => {
    const { worker } = await workerOn(new MemoryDriver());
    const consumers = new Set<unknown>();
    worker.on('receiving', ({ consumer }) => void consumers.add(consumer));
    const first = nextEvent(worker, 'receiving');
    worker.start();
    await first;
    const second = nextEvent(worker, 'receiving');
    worker.start();
    await second;
    expect(consumers.size).toBe(2);
  });
});

describe('worker.start() on a provider without long polling', () => {
  it('takes an explicit waitSeconds the provider cannot keep instead of refusing it', async () => {
    const { worker } = await workerOn(new NoLongPollDriver({}));
    const receiving = nextEvent(worker, 'receiving');
    expect(() => worker.start({ waitSeconds: 1 })).not.toThrow();
    await receiving;
  });
});

describe("worker.start() against the provider's own redrive", () => {
  it('refuses a redrive below the retry policy, and says how to fix it', async () => {
    const { worker } = await workerOn(new MemoryDriver({ name: 'orders', maxReceives: 5 }));
    let error: unknown;
    try {
      worker.start();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QueueError);
    const { code, message, details } = error as QueueError;
    expect(code).toBe('INVALID_ARGUMENT');
    expect(details).toEqual({ redriveAfterReceives: 5, maxAttempts: 15 });
    expect(message).toContain('dead-letters after 5 receives, fewer than the 15 attempts');
    expect(message).toContain('redriveAfterReceives of at least 15');
    expect(message).toContain(`DEFAULT_REDRIVE_AFTER_RECEIVES, is ${DEFAULT_REDRIVE_AFTER_RECEIVES}`);
    expect(message).toContain('retry: { maxAttempts: 5 }');
  });

  it('starts once either fix is applied', async () => {
    const roomy = await workerOn(new MemoryDriver({ maxReceives: DEFAULT_REDRIVE_AFTER_RECEIVES }));
    expect(() => roomy.worker.start()).not.toThrow();
    const fewer = await workerOn(new MemoryDriver({ maxReceives: 5 }), { retry: { maxAttempts: 5 } });
    expect(() => fewer.worker.start()).not.toThrow();
  });
});
