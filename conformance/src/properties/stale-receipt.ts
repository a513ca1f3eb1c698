import fc from 'fast-check';
import { check, checkEqual, checkRejects, show, withSession } from '../support';
import { defineProperty } from './property';

const OPERATIONS = ['ack', 'release', 'extend'] as const;

/**
 * A worker whose lease ran out while another took the message must not settle it: its stale
 * ack, release or extension fails with LEASE_LOST and leaves the new holder's lease alone. The
 * provider refuses it (`staleReceipt: 'rejected'`) or, where it cannot tell, the Queue does.
 */
export const staleReceipt = defineProperty({
  id: 'stale-receipt',
  title: 'settling with a receipt whose message was redelivered fails with LEASE_LOST and changes nothing',
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        leaseSeconds: fc.integer({ min: 1, max: 3600 }),
        operations: fc.subarray([...OPERATIONS], { minLength: 1 }),
        /** Also ack the stale receipt in one batch with a live one, stale first. */
        mixedBatch: fc.boolean(),
      }),
      async ({ leaseSeconds, operations, mixedBatch }) =>
        withSession(harness, async (session) => {
          const lease = session.lease(leaseSeconds);
          const envelope = session.envelope('stale');
          await session.queue.publish({ envelope });
          const [stale] = await session.receive(1, lease);
          check(stale, 'the published message was not delivered');
          await session.clock.advance(lease * 1000 + session.timing.slackMs);
          const [current] = await session.receive(1);
          check(current, `the message was not redelivered after its ${lease} s lease ran out`);
          checkEqual(current.envelope.event_id, envelope.event_id, 'redelivered event');
          for (const operation of operations) {
            if (operation === 'extend' && !session.caps.leaseExtension) continue;
            await checkRejects(
              () =>
                operation === 'ack'
                  ? stale.ack()
                  : operation === 'release'
                    ? stale.release({ delaySeconds: 0 })
                    : stale.extendLease(lease),
              'LEASE_LOST',
              `${operation} with the receipt of the earlier delivery`,
            );
          }
          if (mixedBatch && session.caps.batch.settle >= 2) {
            // One stale entry must not fail (or skip) the live entries batched with it.
            await session.queue.publish({ envelope: session.envelope('live') });
            const [live] = await session.receive(1);
            check(live, 'the second published message was not delivered');
            const results = await session.queue.ackBatch([stale, live]);
            check(
              results.length === 2 && !results[0]!.ok && results[0]!.error.code === 'LEASE_LOST',
              `the stale entry of an ack batch: expected LEASE_LOST, got ${show(results[0])}`,
            );
            check(results[1]!.ok, `the live entry after a stale one in an ack batch: ${show(results[1])}`);
          }
          await session.expectNothing('after stale settles, while the redelivery still holds its lease');
          await current.ack();
          await session.expectNothing('after the current holder acked');
        }),
    ),
});
