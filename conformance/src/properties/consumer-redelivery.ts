import fc from 'fast-check';
import { check, checkEqual, type Session, withSession } from '../support';
import { defineProperty } from './property';

/**
 * The delay a failed delivery must come back after: the retry policy's backoff in seconds,
 * rounded up to whole seconds unless the queue takes fractional delays, within its maximum.
 */
function expectedDelaySeconds(session: Session, backoffMs: number): number {
  const { fractional, maxSeconds } = session.caps.delay;
  const seconds = backoffMs / 1000;
  return Math.min(maxSeconds, fractional ? seconds : Math.ceil(seconds));
}

/**
 * What an application sees through `queue.consume`: a handler that fails is given its message
 * again after the retry policy's backoff, fitted to a delay the queue accepts (never earlier,
 * and not much later), and a handler that succeeds settles it for good.
 */
export const consumerRedelivery = defineProperty({
  id: 'consumer-redelivery',
  title: "a consumer's failed delivery comes back after the retry policy's backoff, then is acked once",
  skipReason: (caps) =>
    (caps.deadLetter.redriveAfterReceives ?? 2) < 2
      ? 'the provider moves a message to its dead letters after its first receive: nothing comes back'
      : undefined,
  runs: { virtual: 30, real: 2 },
  build: (harness) =>
    fc.asyncProperty(fc.integer({ min: 1, max: 30_000 }), async (generatedBackoffMs) =>
      withSession(harness, async (session) => {
        const virtual = session.timing.virtual;
        // On real time the backoff is really waited out: keep it within the run's budget.
        const backoffMs = virtual
          ? generatedBackoffMs
          : 300 + (generatedBackoffMs % Math.max(1, session.timing.maxRealWaitSeconds * 1000 - 1300));
        const expected = expectedDelaySeconds(session, backoffMs);
        const envelope = session.envelope('retried');
        await session.queue.publish({ envelope });
        const calls: Array<{ at: number }> = [];
        const consumer = session.queue.consume(
          async () => {
            calls.push({ at: session.clock.now() });
            if (calls.length === 1) throw new Error('transient failure, as a handler reports one');
          },
          {
            leaseSeconds: session.longLeaseSeconds,
            waitSeconds: Math.min(
              virtual ? 20 : session.timing.receiveWaitSeconds,
              session.caps.longPollMaxSeconds,
            ),
            retry: { maxAttempts: 2, baseMs: backoffMs, maxMs: backoffMs, jitter: 0 },
          },
        );
        try {
          await until(session, () => calls.length >= 1, 'the consumer never handled the published message');
          const failedAt = calls[0]!.at;
          const dueAt = failedAt + expected * 1000;
          if (virtual) {
            await session.clock.advance(dueAt - 1 - session.clock.now());
            checkEqual(calls.length, 1, `handler calls 1 ms before the ${expected} s redelivery was due`);
          }
          await until(
            session,
            () => calls.length >= 2,
            `a delivery whose handler failed did not come back ${expected} s later (backoff ${backoffMs} ms)`,
            dueAt + session.timing.dueSlackMs,
          );
          check(
            calls[1]!.at >= dueAt,
            `the failed delivery came back after ${(calls[1]!.at - failedAt) / 1000} s, before the ${expected} s its ${backoffMs} ms backoff asks for`,
          );
        } finally {
          await consumer.close();
        }
        checkEqual(calls.length, 2, 'handler calls');
        await session.expectNothing('after the redelivered message was handled');
      }),
    ),
});

/**
 * Lets time pass until `condition` holds or `deadline` (default: now on virtual time, the run's
 * real-time budget otherwise) is reached: virtual time in steps of at most a second, real time
 * in short waits. A few turns more at the deadline let woken work finish.
 */
async function until(session: Session, condition: () => boolean, failure: string, deadline?: number) {
  const virtual = session.timing.virtual;
  const end = deadline ?? session.clock.now() + (virtual ? 0 : session.timing.maxRealWaitSeconds * 1000);
  for (let lastTurns = 0; lastTurns < 5; ) {
    await session.clock.advance(0);
    if (condition()) return;
    const now = session.clock.now();
    if (now >= end) lastTurns++;
    else await session.clock.advance(Math.min(virtual ? 1000 : 20, end - now));
  }
  check(condition(), failure);
}
