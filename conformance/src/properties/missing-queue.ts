import fc from 'fast-check';
import { checkRejects, withSession } from '../support';
import { defineProperty } from './property';

/**
 * A queue that does not exist (deleted under a running worker, or a typo in a URL) fails with
 * NOT_FOUND, which is not retryable: never an empty receive that looks like an idle queue.
 */
export const missingQueue = defineProperty({
  id: 'missing-queue',
  title: 'publish and receive on a queue that does not exist fail with NOT_FOUND',
  skipReason: (_caps, context) =>
    context.missingQueue ? undefined : 'the harness opens no missing queue (createMissingQueue)',
  runs: { virtual: 10, real: 1 },
  build: (harness) =>
    fc.asyncProperty(fc.boolean(), async (receiveFirst) =>
      withSession(
        harness,
        async (session) => {
          const publish = () => session.queue.publish({ envelope: session.envelope('nowhere') });
          const receive = () => session.queue.receive({ maxMessages: 1 });
          for (const [what, call] of receiveFirst
            ? ([
                ['receive', receive],
                ['publish', publish],
              ] as const)
            : ([
                ['publish', publish],
                ['receive', receive],
              ] as const)) {
            await checkRejects(call, 'NOT_FOUND', `${what} on a queue that does not exist`);
          }
        },
        'missing',
      ),
    ),
});
