import type { Delivery } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

/**
 * The manifest's batch limits hold both ways: a receive never returns more than it asked for,
 * and batches larger than the provider's limits still go through whole (the Queue chunks them).
 */
export const batchBounds = defineProperty({
  id: 'batch-bounds',
  title:
    'a receive returns at most maxMessages, and batches past the provider limits publish and settle whole',
  build: (harness) =>
    fc.asyncProperty(
      fc.record({ count: fc.integer({ min: 1, max: 25 }), take: fc.integer({ min: 1, max: 10 }) }),
      async ({ count, take }) =>
        withSession(harness, async (session) => {
          const max = Math.min(take, session.caps.batch.receive);
          const lease = session.lease(60);
          const envelopes = Array.from({ length: count }, (_, i) => session.envelope(`b${i}`));
          const receipts = await session.queue.publishBatch(envelopes.map((envelope) => ({ envelope })));
          checkEqual(receipts.length, count, 'publish receipts for a batch past the provider limit');
          const held = new Map<string, Delivery>();
          for (let round = 0; held.size < count && round < count + 2; round++) {
            const batch = await session.receive(max, lease);
            check(batch.length <= max, `asked for at most ${max} messages, received ${batch.length}`);
            for (const delivery of batch) {
              const id = delivery.envelope.event_id;
              check(!held.has(id), `${id} was delivered twice while still leased`);
              held.set(id, delivery);
            }
            if (batch.length === 0) break;
          }
          checkEqual([...held.keys()].sort(), envelopes.map((e) => e.event_id).sort(), 'messages received');
          const results = await session.queue.ackBatch([...held.values()]);
          const failed = results.filter((r) => !r.ok);
          check(failed.length === 0, `${failed.length} of ${results.length} acks in one batch failed`);
          await session.clock.advance(lease * 1000 + 1 + session.timing.slackMs);
          await session.expectNothing('after the whole batch was acked');
        }),
    ),
});
