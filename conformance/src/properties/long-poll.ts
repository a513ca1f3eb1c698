import { ABORTED_RECEIVE_TURNS } from '@queueport/core/driver';
import fc from 'fast-check';
import { check, checkEqual, outcomeOf, type Session, stillPending, withSession } from '../support';
import { defineProperty } from './property';

/**
 * A long poll waits for a first message, wakes as soon as one is published, returns empty when
 * its wait ends, and gives up at once when aborted. A provider that ignores the wait makes
 * consumers spin; one that sleeps through a publish adds its whole wait to every delivery.
 */
export const longPoll = defineProperty({
  id: 'long-poll',
  title:
    'a long poll waits while empty, wakes on a publish, ends empty after its wait, and stops when aborted',
  skipReason: (caps) => (caps.longPollMaxSeconds > 0 ? undefined : 'the manifest declares no long poll'),
  runs: { virtual: 40, real: 3 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        waitSeconds: fc.integer({ min: 1, max: 20 }),
        ending: fc.constantFrom('publish', 'timeout', 'abort', 'due'),
        /** Share of the wait that passes before the publish or the abort. */
        at: fc.double({ min: 0, max: 0.9, noNaN: true }),
      }),
      async ({ waitSeconds, ending, at }) =>
        withSession(harness, async (session) => {
          const wait = session.timing.virtual
            ? Math.min(waitSeconds, session.caps.longPollMaxSeconds)
            : Math.min(2, session.caps.longPollMaxSeconds);
          if (ending === 'due' && session.timing.virtual && wait >= 2) {
            await wakesWhenDue(session, wait, Math.min(wait - 1, Math.max(1, Math.floor(at * wait))));
            return;
          }
          const abort = new AbortController();
          const started = session.clock.now();
          const polling = outcomeOf(
            session.queue.receive({
              maxMessages: 1,
              leaseSeconds: session.longLeaseSeconds,
              waitSeconds: wait,
              signal: abort.signal,
            }),
          );
          check(await stillPending(polling), `a ${wait} s long poll on an empty queue returned at once`);
          if (session.timing.virtual) await session.clock.advance(Math.floor(at * wait * 1000));
          if (ending === 'timeout') {
            if (session.timing.virtual) {
              await session.clock.advance(started + wait * 1000 - 1 - session.clock.now());
              check(await stillPending(polling), `a ${wait} s long poll returned before its wait ended`);
              await session.clock.advance(1);
            }
            const result = await polling;
            check(result.ok, `a long poll that timed out failed: ${String(!result.ok && result.error)}`);
            checkEqual(result.value.length, 0, 'messages from a long poll on an empty queue');
            return;
          }
          if (ending === 'abort') {
            abort.abort('stop');
            // The rule drivers are given (see AbandonedTakes): an answer within these turns.
            const waiting = await stillPending(polling, ABORTED_RECEIVE_TURNS);
            check(!waiting, 'an aborted long poll went on waiting');
            const result = await polling;
            check(!result.ok || result.value.length === 0, 'an aborted long poll returned a message');
            return;
          }
          const envelope = session.envelope('woken');
          await session.queue.publish({ envelope });
          if (session.timing.virtual) {
            check(!(await stillPending(polling)), `a ${wait} s long poll slept through a publish`);
          }
          const result = await polling;
          check(result.ok, `the woken long poll failed: ${String(!result.ok && result.error)}`);
          checkEqual(
            result.value.map((d) => d.envelope.event_id),
            [envelope.event_id],
            'what the woken long poll returned',
          );
          await result.value[0]!.ack();
        }),
    ),
});

/**
 * A long poll on a queue whose messages are all delayed wakes when the first is due, not at the
 * end of its wait: a provider that only wakes on publishes holds due messages back, and one that
 * times its wake-up by the latest (or last published) delayed message wakes too late. The later
 * one is published last and falls due after the wait.
 */
async function wakesWhenDue(session: Session, wait: number, delaySeconds: number): Promise<void> {
  const envelope = session.envelope('due');
  await session.queue.publish({ envelope, delaySeconds });
  await session.queue.publish({ envelope: session.envelope('later'), delaySeconds: wait + 1 });
  const started = session.clock.now();
  const polling = outcomeOf(
    session.queue.receive({ maxMessages: 1, leaseSeconds: session.longLeaseSeconds, waitSeconds: wait }),
  );
  await session.clock.advance(started + delaySeconds * 1000 - 1 - session.clock.now());
  check(
    await stillPending(polling),
    `a long poll returned before its first message was due (${delaySeconds} s)`,
  );
  await session.clock.advance(1 + session.timing.dueSlackMs);
  check(
    !(await stillPending(polling)),
    `a ${wait} s long poll did not wake when a ${delaySeconds} s delay ran out (another message was due after ${wait + 1} s)`,
  );
  const result = await polling;
  check(result.ok, `the long poll failed: ${String(!result.ok && result.error)}`);
  checkEqual(
    result.value.map((d) => d.envelope.event_id),
    [envelope.event_id],
    'what the woken long poll returned',
  );
  await result.value[0]!.ack();
}
