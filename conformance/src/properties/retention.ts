import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

/**
 * A message is kept, leased or not, until its retention runs out from its publish, and not
 * after: a provider that drops it sooner loses events, one that keeps it forever redelivers
 * what the application was promised was gone.
 */
export const retention = defineProperty({
  id: 'retention',
  title: 'an unacknowledged message is kept until its retention runs out, and then it is gone',
  skipReason: (_caps, timing) =>
    timing.virtual ? undefined : 'needs a virtual clock: retention lasts at least a minute on every provider',
  runs: { virtual: 30 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({ looks: fc.integer({ min: 0, max: 3 }), leased: fc.boolean() }),
      async ({ looks, leased }) =>
        withSession(harness, async (session) => {
          // The driver's own promise: the Queue reports at most the portable 14 days.
          const retentionMs = session.queue.driver.capabilities.retentionSeconds * 1000;
          const envelope = session.envelope('kept');
          await session.queue.publish({ envelope });
          const started = session.clock.now();
          // A few looks along the way, each handing the message straight back.
          const allowed = Math.min(looks, session.receivesBeforeRedrive - 1);
          for (let look = 1; look <= allowed; look++) {
            await session.clock.advance(
              started + Math.floor((retentionMs * look) / (allowed + 2)) - session.clock.now(),
            );
            const [delivery] = await session.receive(1);
            check(delivery, `the message was gone ${look} look(s) into its retention`);
            await delivery.release();
          }
          await session.clock.advance(started + retentionMs - 1000 - session.clock.now());
          const [last] = await session.receive(1, leased ? session.longLeaseSeconds : 1);
          check(last, 'the message was gone 1 s before its retention ran out');
          checkEqual(last.envelope.event_id, envelope.event_id, 'kept event');
          if (!leased) await last.release();
          await session.clock.advance(2000);
          await session.clock.advance(session.longLeaseSeconds * 1000);
          await session.expectNothing('after its retention ran out');
        }),
    ),
});
