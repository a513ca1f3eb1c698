import type { Capabilities } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, checkRejects, show, withSession } from '../support';
import { defineProperty } from './property';

const DAY = 86_400;

const delayArb = fc.oneof(
  fc.constantFrom(0, 1, 899, 900, 901, DAY, 604_799, 604_800),
  fc.integer({ min: 0, max: 604_800 }),
  fc.constantFrom(-1, -0.001, 0.5, 12.25, 604_799.5, 604_800.5, 604_801, 1e12),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.double({ min: 0, max: 604_800, noNaN: true }),
  // Not numbers at all: a loose `<=` would take "5" for 5 wherever fractions are allowed.
  fc.constantFrom<unknown>('5', [5], true, {}),
);

/** The oracle, written apart from the Queue's own check so the two can disagree. */
function shouldAccept(delay: unknown, caps: Capabilities): delay is number {
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > caps.delay.maxSeconds) {
    return false;
  }
  return caps.delay.fractional || Number.isInteger(delay);
}

export const delayBounds = defineProperty({
  id: 'delay-bounds',
  title:
    'delays across [0, 7 days] are accepted and never delivered before due; others fail with DELAY_OUT_OF_RANGE',
  build: (harness) =>
    fc.asyncProperty(delayArb, async (delay) =>
      withSession(harness, async (session) => {
        const envelope = session.envelope('delayed');
        const publish = () => session.queue.publish({ envelope, delaySeconds: delay as number });
        if (!shouldAccept(delay, session.caps)) {
          await checkRejects(publish, 'DELAY_OUT_OF_RANGE', `publishing with delay ${show(delay)}`);
          await session.expectOnlySentinel(`after a publish with delay ${show(delay)} was refused`);
          return;
        }
        await publish();
        const dueMs = delay * 1000;
        if (session.timing.virtual) {
          if (dueMs >= 1) {
            await session.clock.advance(dueMs - 1);
            await session.expectNothing(`1 ms before a ${delay} s delay was due`);
          }
          await session.clock.advance(Math.min(1, dueMs) + session.timing.dueSlackMs);
        } else {
          if (delay >= 1) {
            await session.expectNothing(`right after publishing with a ${delay} s delay`, {
              beforeDue: true,
            });
          }
          if (delay > session.timing.maxRealWaitSeconds) return;
          await session.clock.advance(dueMs + session.timing.dueSlackMs);
        }
        const got = await session.drain({ ack: true });
        check(got.length > 0, `a message with a ${delay} s delay was not delivered when due`);
        checkEqual(
          got.map((d) => d.envelope.event_id),
          [envelope.event_id],
          'delivered when due, once',
        );
      }),
    ),
});
