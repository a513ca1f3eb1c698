// Copied into the scratch project by scripts/package-check/install-alone.ts: type-checked there
// with tsc (strict, skipLibCheck: false, under node16 and bundler resolution), compiled with the
// node16 config and run as `node out/app.mjs`. An ESM application on the packed packages: a
// typed queue on the memory driver, one event published and consumed, and QueueErrors thrown by
// the CommonJS build of @queueport/memory recognised by the ESM build of @queueport/core.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Delivery, isQueueError, Queue, QueueError } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';

/** The events this application's queue carries: event type → payload. */
type Events = {
  'order.paid': { amount: number; currency: string };
  'order.refunded': { reason: string };
};

const modules = path.join(process.cwd(), 'node_modules') + path.sep;

function fail(message: string): never {
  console.error(`app.mjs: ${message}`);
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

/**
 * What the compiler must refuse: never called, only type-checked. Each `@ts-expect-error` fails
 * the type-check if the line below it compiles, so the typing of payloads is proven both ways.
 */
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

// The packages resolve into this project, to the ESM build for import and the CommonJS build for require.
const require = createRequire(import.meta.url);
for (const name of ['@queueport/core', '@queueport/memory']) {
  const imported = fileURLToPath(import.meta.resolve(name));
  const required = require.resolve(name);
  check(imported.startsWith(modules) && imported.endsWith('.js'), `import ${name} resolved to ${imported}`);
  check(required.startsWith(modules) && required.endsWith('.cjs'), `require ${name} resolved to ${required}`);
}

// 1. A typed queue on the memory driver: publish, consume, ack.
const queue = new Queue<Events>(new MemoryDriver({ name: 'orders' }));
const receipt = await queue.publish({
  envelope: { event_id: 'order_1:paid', type: 'order.paid', payload: { amount: 1250, currency: 'EUR' } },
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
check(paid.amount === 1250 && paid.currency === 'EUR', `consumed ${JSON.stringify(paid)}`);
check((await queue.receive({ maxMessages: 10 })).length === 0, 'the consumed message was not acked');
await queue.close();
console.log(`esm: published and consumed order.paid ${paid.amount} ${paid.currency} (typed payload)`);

// 2. The CommonJS build of the driver (and of the core it loads) beside the ESM core.
const cjsCore = require('@queueport/core') as typeof import('@queueport/core');
const cjsMemory = require('@queueport/memory') as typeof import('@queueport/memory');
check(cjsCore.QueueError !== QueueError, 'require and import gave the same QueueError class: one build only');

// 2a. Thrown by the CommonJS driver itself, caught by this ESM program.
// A deleted queue, as after a provider's DeleteQueue: the driver itself answers NOT_FOUND (a
// closed driver is no longer asked at all: the Queue refuses calls after close()).
const deleted = new cjsMemory.MemoryDriver({ name: 'cjs-deleted' });
deleted.delete();
const direct = await rejection(deleted.publish([]));
check(
  Object.getPrototypeOf(direct) === cjsCore.QueueError.prototype,
  'the error is not the CommonJS build’s',
);
check(
  isQueueError(direct),
  `isQueueError (ESM) does not recognise the CommonJS QueueError: ${String(direct)}`,
);
check(direct instanceof QueueError, 'instanceof QueueError (ESM) is false for the CommonJS QueueError');
check(
  isQueueError(direct, 'NOT_FOUND'),
  `the CommonJS driver's error has code ${(direct as QueueError).code}, not NOT_FOUND`,
);

// 2b. Through the ESM Queue over the CommonJS driver: its code is kept, not turned into INTERNAL.
const overCjs = new Queue<Events>(deleted);
const normalised = await rejection(
  overCjs.publish({
    envelope: { event_id: 'order_2:paid', type: 'order.paid', payload: { amount: 1, currency: 'EUR' } },
  }),
);
check(isQueueError(normalised, 'NOT_FOUND'), `the ESM Queue reported ${String(normalised)}, not NOT_FOUND`);

// 2c. A retryable error from the CommonJS build is retried by the ESM Queue, then succeeds.
const inner = new cjsMemory.MemoryDriver({ name: 'cjs-flaky' });
let publishCalls = 0;
const flaky = new Proxy(inner, {
  get(target, key) {
    if (key === 'publish') {
      return async (messages: Parameters<MemoryDriver['publish']>[0]) => {
        publishCalls += 1;
        if (publishCalls === 1) throw new cjsCore.QueueError('UNAVAILABLE', 'injected: briefly unavailable');
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
  envelope: { event_id: 'order_3:refunded', type: 'order.refunded', payload: { reason: 'duplicate charge' } },
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
  'esm: CommonJS @queueport/memory -> QueueError NOT_FOUND seen by isQueueError and instanceof (ESM core), kept by the ESM Queue; UNAVAILABLE retried',
);
