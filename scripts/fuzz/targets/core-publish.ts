/**
 * publish / publishBatch with whatever a careless or hostile caller passes. Every case ends in
 * success or a typed QueueError, and nothing is half-written: after a refused batch the queue
 * holds nothing; after an accepted one, every message it holds can be read back.
 */
import { type PublishReceipt, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';
import fc from 'fast-check';
import { batchArb } from '../arbitraries';
import { check, outcomeOf } from '../context';
import type { FuzzTarget } from './fuzz-target';

const DAY_MS = 86_400_000;

const driverArb: fc.Arbitrary<Omit<MemoryDriverOptions, 'clock'>> = fc.oneof(
  fc.constant({}),
  fc.constant({ nativeMaxDelaySeconds: 900 }),
  fc.constant({ dedupe: { kind: 'none' as const }, ordering: 'none' as const }),
  fc.constant({ fractionalDelay: true, batchMax: 3 }),
);

/** A smaller limit now and then: refusals at the limit then cost microseconds, not milliseconds. */
const limitArb = fc.constantFrom(undefined, undefined, 1_024, 65_536);

async function drain(queue: Queue, clock: VirtualClock, invalid: unknown[]): Promise<number> {
  let delivered = 0;
  // Eight days covers the longest delay, hop by hop where the bridge is on.
  for (let day = 0; day < 10; day++) {
    for (;;) {
      const batch = await queue.receive({ maxMessages: queue.capabilities.batch.receive });
      if (batch.length === 0) break;
      delivered += batch.length;
      const results = await queue.ackBatch(batch);
      check(
        results.every((result) => result.ok),
        'an ack failed',
      );
    }
    check(invalid.length === 0, `a published message could not be read back: ${String(invalid[0])}`);
    await clock.advance(DAY_MS);
  }
  return delivered;
}

export const targets: FuzzTarget[] = [
  {
    name: 'core-publish',
    minCases: 10_000,
    property: () =>
      fc.asyncProperty(batchArb, driverArb, limitArb, async (batch, driverOptions, maxBodyBytes) => {
        const clock = new VirtualClock();
        const driver = new MemoryDriver({ ...driverOptions, clock });
        const invalid: unknown[] = [];
        const queue = new Queue(driver, {
          clock,
          ...(maxBodyBytes ? { limits: { maxBodyBytes } } : {}),
          hooks: { onInvalidMessage: ({ error }) => invalid.push(error.message) },
        });
        try {
          const outcome = await outcomeOf(() => queue.publishBatch(batch as never));
          if (!outcome.ok) {
            check(
              driver.depth() === 0,
              `a refused publishBatch (${outcome.error.code}) left messages behind`,
            );
            const leftover = await queue.receive({ maxMessages: queue.capabilities.batch.receive });
            check(leftover.length === 0, 'a refused batch was delivered');
            return;
          }
          const receipts: PublishReceipt[] = outcome.value;
          check(Array.isArray(batch) && receipts.length === batch.length, 'one receipt per input');
          const fresh = receipts.filter((receipt) => !receipt.duplicate).length;
          check(
            receipts.every((receipt) => receipt.sizeBytes <= queue.capabilities.maxBodyBytes),
            'a message over the size limit was accepted',
          );
          const delivered = await drain(queue, clock, invalid);
          check(delivered === fresh, `${fresh} messages were accepted, ${delivered} delivered`);
        } finally {
          await queue.close();
        }
      }),
  },
];
