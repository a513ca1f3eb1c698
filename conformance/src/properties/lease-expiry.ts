import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

export const leaseExpiry = defineProperty({
  id: 'lease-expiry',
  title: 'a lease hides a message until it runs out, then it is redelivered with a higher receive count',
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        leaseSeconds: fc.integer({ min: 1, max: 43_200 }),
        expiries: fc.integer({ min: 1, max: 3 }),
      }),
      async ({ leaseSeconds, expiries }) =>
        withSession(harness, async (session) => {
          const lease = session.lease(leaseSeconds);
          const envelope = session.envelope('leased');
          await session.queue.publish({ envelope });
          let previous = 0;
          const rounds = Math.min(expiries + 1, session.receivesBeforeRedrive);
          for (let round = 1; round <= rounds; round++) {
            const [delivery, ...rest] = await session.receive(1, lease);
            check(
              delivery && rest.length === 0,
              `round ${round}: the message was not delivered after its lease ran out`,
            );
            checkEqual(delivery.envelope.event_id, envelope.event_id, `round ${round}: redelivered event`);
            if (session.caps.receiveCount) {
              check(
                delivery.receiveCount > previous,
                `round ${round}: receive count ${delivery.receiveCount} is not higher than ${previous}`,
              );
              previous = delivery.receiveCount;
            }
            if (round === rounds) {
              await delivery.ack();
              break;
            }
            // Just before the lease ends the message must still be hidden.
            if (session.timing.virtual) {
              await session.clock.advance(lease * 1000 - 1);
              await session.expectNothing(`round ${round}: 1 ms before a ${lease} s lease ran out`);
              await session.clock.advance(1);
            } else {
              await session.expectNothing(`round ${round}: within a ${lease} s lease`);
              await session.clock.advance(lease * 1000 + session.timing.slackMs);
            }
          }
        }),
    ),
});
