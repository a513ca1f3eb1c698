import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

/**
 * An extended lease holds until its new end, counted from the extension: a driver whose
 * extension does nothing hands the message to a second worker while the first still works.
 */
export const leaseExtension = defineProperty({
  id: 'lease-extension',
  title: 'an extended lease hides the message until its new end, then it is redelivered',
  skipReason: (caps) => (caps.leaseExtension ? undefined : 'the manifest declares no lease extension'),
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        leaseSeconds: fc.integer({ min: 1, max: 3600 }),
        /** Share of the lease that passes before the extension. */
        at: fc.double({ min: 0, max: 0.9, noNaN: true }),
        extensionSeconds: fc.integer({ min: 1, max: 43_200 }),
        extensions: fc.integer({ min: 1, max: 3 }),
      }),
      async ({ leaseSeconds, at, extensionSeconds, extensions }) =>
        withSession(harness, async (session) => {
          const lease = session.lease(leaseSeconds);
          // Extensions stay inside a declared hold: past it the Queue refuses them (max-hold).
          const hold = session.caps.maxHoldSeconds;
          const withinHold = hold === undefined ? Number.POSITIVE_INFINITY : (hold - lease) / extensions - 1;
          const extension = Math.max(
            session.caps.leaseSeconds.min,
            1,
            Math.min(session.lease(extensionSeconds), Math.floor(withinHold)),
          );
          const envelope = session.envelope('extended');
          await session.queue.publish({ envelope });
          const [delivery] = await session.receive(1, lease);
          check(delivery, 'the published message was not delivered');
          let leaseMs = lease * 1000;
          for (let round = 1; round <= extensions; round++) {
            const wait = session.timing.virtual ? Math.floor(at * leaseMs) : 0;
            await session.clock.advance(wait);
            await delivery.extendLease(extension);
            leaseMs = extension * 1000;
            if (session.timing.virtual) {
              await session.clock.advance(leaseMs - 1);
              await session.expectNothing(`1 ms before the end of extension ${round} (${extension} s)`);
              leaseMs = 1;
            } else {
              await session.expectNothing(`right after extension ${round} (${extension} s)`);
            }
          }
          await session.clock.advance(leaseMs + session.timing.slackMs);
          const [again] = await session.receive(1);
          check(again, 'the message did not come back after its extended lease ran out');
          checkEqual(again.envelope.event_id, envelope.event_id, 'redelivered event');
          if (session.caps.receiveCount) {
            check(
              again.receiveCount > delivery.receiveCount,
              'the receive count did not grow after the extended lease',
            );
          }
          await again.ack();
        }),
    ),
});
