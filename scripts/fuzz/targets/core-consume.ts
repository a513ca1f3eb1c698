/**
 * `new Queue(driver, options)` and `queue.consume(handler, options)` with odd options and odd
 * handlers. Construction ends in a Queue / Consumer or a typed QueueError; a consumer that was
 * accepted runs, handles what it is given, and stops when closed (a hang is a failure).
 */
import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import fc from 'fast-check';
import { oddNumber, oddValue, optionalOdd } from '../arbitraries';
import { check, outcomeOf, outcomeOfSync } from '../context';
import type { FuzzTarget } from './fuzz-target';

const fn = () => undefined;

const retryArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        maxAttempts: fc.oneof(fc.integer({ min: 1, max: 12 }), oddNumber),
        baseMs: fc.oneof(fc.integer({ min: 0, max: 2_000 }), oddNumber),
        maxMs: fc.oneof(fc.integer({ min: 0, max: 60_000 }), oddNumber),
        jitter: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), oddNumber),
        retryAfterMinMs: fc.integer({ min: 0, max: 1_000 }),
        retryAfterMaxMs: fc.integer({ min: 0, max: 100_000 }),
        maxAttempt: oddValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

const validQueueOptionsArb = fc.record(
  {
    retry: fc.record({ maxAttempts: fc.integer({ min: 1, max: 5 }), baseMs: fc.constantFrom(0, 1, 100) }),
    limits: fc.record({ maxBodyBytes: fc.integer({ min: 1_000, max: 300_000 }) }),
    hooks: fc.constant({ onRetry: fn, onBridgeError: fn }),
    defaultLeaseSeconds: fc.integer({ min: 1, max: 600 }),
  },
  { requiredKeys: [] },
);

const validConsumeOptionsArb = fc.record(
  {
    concurrency: fc.integer({ min: 1, max: 8 }),
    leaseSeconds: fc.integer({ min: 1, max: 600 }),
    waitSeconds: fc.constantFrom(0, 1, 20),
    signal: fc.constant('fresh'),
    retry: fc.record({ maxAttempts: fc.integer({ min: 1, max: 10 }) }),
    onError: fc.constant(fn),
    onDeadLetter: fc.constant(async () => undefined),
  },
  { requiredKeys: [] },
);

const queueOptionsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: validQueueOptionsArb },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        retry: retryArb,
        limits: fc.oneof(
          fc.constant(undefined),
          fc.record(
            {
              maxBodyBytes: fc.oneof(fc.integer({ min: 1, max: 300_000 }), oddNumber),
              maxDelaySeconds: fc.oneof(fc.integer({ min: 0, max: 700_000 }), oddNumber),
            },
            { requiredKeys: [] },
          ),
          oddValue,
        ),
        hooks: fc.oneof(
          fc.constant(undefined),
          fc.record({
            onRetry: optionalOdd(fc.constant(fn)),
            onInvalidMessage: optionalOdd(fc.constant(fn)),
          }),
          oddValue,
        ),
        defaultLeaseSeconds: optionalOdd(fc.integer({ min: 0, max: 50_000 })),
        typo: oddValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

const consumeOptionsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: validConsumeOptionsArb },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        concurrency: optionalOdd(fc.integer({ min: 1, max: 8 }), 3),
        leaseSeconds: optionalOdd(fc.integer({ min: 1, max: 600 }), 3),
        waitSeconds: optionalOdd(fc.constantFrom(0, 1, 20), 3),
        signal: optionalOdd(fc.constant('fresh'), 3),
        retry: retryArb,
        onError: optionalOdd(fc.constant(fn)),
        onDeadLetter: optionalOdd(fc.constant(async () => undefined)),
        typo: oddValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

const handlerArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('resolves', 'throws', 'throws-typed', 'settles-itself') },
  { weight: 1, arbitrary: oddValue },
);

export const targets: FuzzTarget[] = [
  {
    name: 'core-consume',
    minCases: 2_000,
    property: () =>
      fc.asyncProperty(
        queueOptionsArb,
        consumeOptionsArb,
        handlerArb,
        fc.boolean(),
        fc.nat({ max: 3 }),
        async (queueOptions, consumeOptions, handlerKind, abortEarly, messages) => {
          const clock = new VirtualClock();
          const made = outcomeOfSync(
            () => new Queue(new MemoryDriver({ clock }), { ...(queueOptions as object), clock } as never),
            'new Queue',
          );
          // Also as given (a null or a string as the whole options).
          outcomeOfSync(
            () => new Queue(new MemoryDriver({ clock }), queueOptions as never),
            'new Queue (as given)',
          );
          if (!made.ok) return;
          const queue = made.value;
          try {
            // With a tiny limit from the options, this is refused; the consumer runs either way.
            await outcomeOf(
              () =>
                queue.publishBatch(
                  Array.from({ length: messages }, (_, i) => ({
                    envelope: { event_id: `evt_${i}:v1`, type: 't', payload: { i } },
                  })),
                ),
              'publish',
            );
            const controller = new AbortController();
            const options =
              consumeOptions !== null &&
              typeof consumeOptions === 'object' &&
              (consumeOptions as { signal?: unknown }).signal === 'fresh'
                ? { ...consumeOptions, signal: controller.signal }
                : consumeOptions;
            const handler =
              typeof handlerKind === 'string' &&
              ['resolves', 'throws', 'throws-typed', 'settles-itself'].includes(handlerKind)
                ? async (delivery: { ack(): Promise<void> }) => {
                    if (handlerKind === 'throws') throw new Error('handler failed');
                    if (handlerKind === 'throws-typed')
                      throw Object.assign(new Error('typed'), { retryable: false });
                    if (handlerKind === 'settles-itself') await delivery.ack();
                  }
                : handlerKind;
            const started = outcomeOfSync(() => queue.consume(handler as never, options as never), 'consume');
            if (!started.ok) return;
            const consumer = started.value;
            if (abortEarly) controller.abort();
            for (let step = 0; step < 5; step++) {
              await new Promise((resolve) => setImmediate(resolve));
              await clock.advance(2_000);
            }
            await outcomeOf(() => consumer.close(), 'consumer.close');
            check(consumer.stopping, 'a closed consumer still runs');
          } finally {
            await queue.close();
          }
        },
      ),
  },
];
