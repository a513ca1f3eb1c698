// Copied into the scratch project by scripts/package-check/install-alone.ts: type-checked there
// with tsc (strict, skipLibCheck: false, node16 resolution), compiled and run as
// `node out/app.cjs`. A CommonJS application on the packed packages: a typed queue on the memory
// driver, one event published and consumed, and QueueErrors thrown by the ESM build of
// @queueport/memory recognised by the CommonJS build of @queueport/core.
import path from 'node:path';
import { type Delivery, isQueueError, Queue, QueueError } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';

/** The events this application's queue carries: event type → payload. */
type Events = {
  'order.paid': { amount: number; currency: string };
  'order.refunded': { reason: string };
};

const modules = path.join(process.cwd(), 'node_modules') + path.sep;

function fail(message: string): never {
  console.error(`app.cjs: ${message}`);
  process.exit(1);
}

function check(ok: boolean, message: string): void {
  if (!ok) fail(message);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => fail('expected a rejection, the call succeeded'),
    (error: unknown) => error,
  );
}

/** Never called, only type-checked: each `@ts-expect-error` fails the check if its line compiles. */
export function typeLevelChecks(queue: Queue<Events>, delivery: Delivery<Events>): void {
  // One statement per line (each fits the formatter's width), so each directive covers its error.
  const paid = { amount: 1, currency: 'EUR' };
  const amountAsText = { amount: '1', currency: 'EUR' };
  void queue.publish({ envelope: { event_id: 'e0', type: 'order.paid', payload: paid } });
  // @ts-expect-error a wrong payload for the type: amount is a number
  void queue.publish({ envelope: { event_id: 'e1', type: 'order.paid', payload: amountAsText } });
  // @ts-expect-error a payload missing a field of its type
  void queue.publish({ envelope: { event_id: 'e2', type: 'order.paid', payload: { amount: 1 } } });
  // @ts-expect-error an event type the queue does not carry
  void queue.publish({ envelope: { event_id: 'e3', type: 'order.shipped', payload: paid } });
  // @ts-expect-error another type's payload
  void queue.publish({ envelope: { event_id: 'e4', type: 'order.refunded', payload: paid } });
  // @ts-expect-error the payload is a union until `type` is checked
  void delivery.envelope.payload.amount;
  // A payload carried by reference (payload_ref) is not in the envelope: it is checked too.
  if (delivery.envelope.type === 'order.paid' && delivery.envelope.payload !== undefined) {
    const amount: number = delivery.envelope.payload.amount;
    const currency: string = delivery.envelope.payload.currency;
    void [amount, currency];
  }
}

async function main(): Promise<void> {
  for (const name of ['@queueport/core', '@queueport/memory']) {
    const required = require.resolve(name);
    check(
      required.startsWith(modules) && required.endsWith('.cjs'),
      `require ${name} resolved to ${required}`,
    );
  }

  // 1. A typed queue on the memory driver: publish, consume, ack.
  const queue = new Queue<Events>(new MemoryDriver({ name: 'orders' }));
  const receipt = await queue.publish({
    envelope: { event_id: 'order_1:paid', type: 'order.paid', payload: { amount: 990, currency: 'USD' } },
  });
  check(
    receipt.eventId === 'order_1:paid' && !receipt.duplicate,
    `publish returned ${JSON.stringify(receipt)}`,
  );
  let consumed!: (paid: { amount: number; currency: string }) => void;
  const handled = new Promise<{ amount: number; currency: string }>((resolve) => {
    consumed = resolve;
  });
  const consumer = queue.consume(async (delivery) => {
    const { envelope } = delivery;
    if (envelope.type === 'order.paid' && envelope.payload !== undefined)
      consumed({ amount: envelope.payload.amount, currency: envelope.payload.currency });
    else fail(`consumed an unexpected ${envelope.type}, or one without its payload`);
  });
  const timer = setTimeout(() => fail('nothing was consumed within 10 s'), 10_000);
  const paid = await handled;
  clearTimeout(timer);
  await consumer.close();
  check(consumer.stats.acked === 1, `the consumer acked ${consumer.stats.acked} deliveries, not 1`);
  check(paid.amount === 990 && paid.currency === 'USD', `consumed ${JSON.stringify(paid)}`);
  check((await queue.receive({ maxMessages: 10 })).length === 0, 'the consumed message was not acked');
  await queue.close();
  console.log(`cjs: published and consumed order.paid ${paid.amount} ${paid.currency} (typed payload)`);

  // 2. The ESM build of the driver (and of the core it loads) beside the CommonJS core.
  const esmCore = await import('@queueport/core');
  const esmMemory = await import('@queueport/memory');
  check(
    esmCore.QueueError !== QueueError,
    'import and require gave the same QueueError class: one build only',
  );

  // 2a. Thrown by the ESM driver itself, caught by this CommonJS program.
  // A deleted queue, as after a provider's DeleteQueue: the driver itself answers NOT_FOUND (a
  // closed driver is no longer asked at all: the Queue refuses calls after close()).
  const deleted = new esmMemory.MemoryDriver({ name: 'esm-deleted' });
  deleted.delete();
  const direct = await rejection(deleted.publish([]));
  check(Object.getPrototypeOf(direct) === esmCore.QueueError.prototype, 'the error is not the ESM build’s');
  check(
    isQueueError(direct),
    `isQueueError (CommonJS) does not recognise the ESM QueueError: ${String(direct)}`,
  );
  check(direct instanceof QueueError, 'instanceof QueueError (CommonJS) is false for the ESM QueueError');
  check(
    isQueueError(direct, 'NOT_FOUND'),
    `the ESM driver's error has code ${(direct as QueueError).code}, not NOT_FOUND`,
  );

  // 2b. Through the CommonJS Queue over the ESM driver: its code is kept, not turned into INTERNAL.
  const overEsm = new Queue<Events>(deleted);
  const normalised = await rejection(
    overEsm.publish({
      envelope: { event_id: 'order_2:paid', type: 'order.paid', payload: { amount: 1, currency: 'EUR' } },
    }),
  );
  check(
    isQueueError(normalised, 'NOT_FOUND'),
    `the CommonJS Queue reported ${String(normalised)}, not NOT_FOUND`,
  );

  // 2c. A retryable error from the ESM build is retried by the CommonJS Queue, then succeeds.
  const inner = new esmMemory.MemoryDriver({ name: 'esm-flaky' });
  let publishCalls = 0;
  const flaky = new Proxy(inner, {
    get(target, key) {
      if (key === 'publish') {
        return async (messages: Parameters<MemoryDriver['publish']>[0]) => {
          publishCalls += 1;
          if (publishCalls === 1)
            throw new esmCore.QueueError('UNAVAILABLE', 'injected: briefly unavailable');
          return target.publish(messages);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const retried: QueueError[] = [];
  const retrying = new Queue<Events>(flaky, {
    retry: { baseMs: 1, maxMs: 5 },
    hooks: { onRetry: ({ error }) => retried.push(error) },
  });
  const second = await retrying.publish({
    envelope: {
      event_id: 'order_3:refunded',
      type: 'order.refunded',
      payload: { reason: 'duplicate charge' },
    },
  });
  check(
    publishCalls === 2 && !second.duplicate,
    `publish calls: ${publishCalls} (expected a retry, then success)`,
  );
  check(retried.length === 1 && isQueueError(retried[0], 'UNAVAILABLE'), 'the retry did not see UNAVAILABLE');
  const [refund] = await retrying.receive();
  if (refund?.envelope.type !== 'order.refunded' || refund.envelope.payload === undefined) {
    fail('the retried publish did not arrive');
  }
  check(refund.envelope.payload.reason === 'duplicate charge', 'the refund payload changed on the way');
  await refund.ack();
  await retrying.close();
  console.log(
    'cjs: ESM @queueport/memory -> QueueError NOT_FOUND seen by isQueueError and instanceof (CommonJS core), kept by the CommonJS Queue; UNAVAILABLE retried',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
