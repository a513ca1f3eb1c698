import fc from 'fast-check';
import { checkEqual, withSession } from '../support';
import { defineProperty } from './property';

export const ackDeletes = defineProperty({
  id: 'ack-deletes',
  title: 'an acked message never comes back; an unacked one does',
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        acks: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        leaseSeconds: fc.integer({ min: 1, max: 3600 }),
      }),
      async ({ acks, leaseSeconds }) =>
        withSession(harness, async (session) => {
          const lease = session.lease(leaseSeconds);
          const envelopes = acks.map((_, i) => session.envelope(`m${i}`));
          await session.queue.publishBatch(envelopes.map((envelope) => ({ envelope })));
          const first = await session.drain({ ack: false, leaseSeconds: lease });
          const acked = new Set<string>();
          for (const delivery of first) {
            const index = envelopes.findIndex((e) => e.event_id === delivery.envelope.event_id);
            if (acks[index]) {
              await delivery.ack();
              acked.add(delivery.envelope.event_id);
            }
          }
          await session.clock.advance(lease * 1000 + 1 + session.timing.slackMs);
          const again = await session.drain({ ack: true, leaseSeconds: lease });
          const expectedBack = envelopes.map((e) => e.event_id).filter((id) => !acked.has(id));
          checkEqual(
            again.map((d) => d.envelope.event_id).sort(),
            expectedBack.sort(),
            'after the lease ran out, exactly the unacked messages came back',
          );
          await session.clock.advance(lease * 1000 + 1 + session.timing.slackMs);
          await session.expectNothing('after every message was acked');
        }),
    ),
});
