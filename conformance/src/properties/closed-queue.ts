import fc from 'fast-check';
import { check, checkRejects, outcomeOf, stillPending, withSession } from '../support';
import { defineProperty } from './property';

/**
 * Closing ends what is waiting (a long poll returns instead of holding shutdown) and refuses
 * what comes after with CLOSED, never a hang or a silent success.
 */
export const closedQueue = defineProperty({
  id: 'closed-queue',
  title: 'close ends a waiting long poll, and publish or receive afterwards fail with CLOSED',
  runs: { virtual: 20, real: 2 },
  build: (harness) =>
    fc.asyncProperty(fc.boolean(), async (whileWaiting) =>
      withSession(harness, async (session) => {
        const wait = session.caps.longPollMaxSeconds;
        if (whileWaiting && wait > 0) {
          const polling = outcomeOf(session.queue.receive({ maxMessages: 1, waitSeconds: wait }));
          check(await stillPending(polling), 'a long poll on an empty queue returned at once');
          const closing = session.queue.close();
          if (session.timing.virtual) {
            check(!(await stillPending(polling)), `close() left a ${wait} s long poll waiting`);
          }
          await polling;
          await closing;
        } else {
          await session.queue.close();
        }
        await checkRejects(
          () => session.queue.publish({ envelope: session.envelope('late') }),
          'CLOSED',
          'publish after close',
        );
        await checkRejects(() => session.queue.receive(), 'CLOSED', 'receive after close');
      }),
    ),
});
