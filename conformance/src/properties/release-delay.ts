import fc from 'fast-check';
import { check, checkEqual, checkRejects, withSession } from '../support';
import { attributesArb } from './arbitraries';
import { defineProperty } from './property';

export const releaseDelay = defineProperty({
  id: 'release-delay',
  title:
    'a released message comes back no earlier than its delay, attributes and group intact; out-of-range release delays are refused',
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        delay: fc.oneof(fc.constantFrom(0, 1, 900, 604_800), fc.integer({ min: 0, max: 604_800 })),
        bad: fc.constantFrom(-1, Number.NaN, 604_801, Number.POSITIVE_INFINITY),
        attributes: attributesArb,
        grouped: fc.boolean(),
      }),
      async ({ delay, bad, attributes, grouped }) =>
        withSession(harness, async (session) => {
          const max = session.caps.delay.maxSeconds;
          const seconds = session.timing.virtual
            ? Math.min(delay, max)
            : Math.min(delay, Math.floor(session.timing.maxRealWaitSeconds));
          const envelope = session.envelope('released');
          const groupId =
            grouped && session.caps.ordering === 'fifo-per-group' ? `g-${session.nonce}` : undefined;
          await session.queue.publish({ envelope, attributes, ...(groupId ? { groupId } : {}) });
          const [first] = await session.receive(1);
          check(first, 'the published message was not delivered');
          await checkRejects(
            () => first.release({ delaySeconds: bad }),
            'DELAY_OUT_OF_RANGE',
            `release with delay ${bad}`,
          );
          await first.release({ delaySeconds: seconds });
          if (seconds > 0) {
            if (session.timing.virtual) await session.clock.advance(seconds * 1000 - 1);
            await session.expectNothing(`before a ${seconds} s release delay ran out`, { beforeDue: true });
          }
          await session.clock.advance(
            (session.timing.virtual ? 1 : seconds * 1000) + session.timing.dueSlackMs,
          );
          const [second] = await session.drain({ ack: true });
          check(second, `the message did not come back after a ${seconds} s release delay`);
          checkEqual(second.envelope.event_id, envelope.event_id, 'released event');
          checkEqual({ ...second.attributes }, attributes, 'attributes after a release');
          checkEqual(second.groupId, groupId, 'group id after a release');
          if (session.caps.receiveCount)
            checkEqual(second.receiveCount, first.receiveCount + 1, 'receive count after release');
        }),
    ),
});
