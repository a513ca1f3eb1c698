import { MAX_ATTRIBUTES } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, outcomeOf, type Session, stillPending, withSession } from '../support';
import { defineProperty } from './property';

const REAL_TIME_REASON =
  'needs a virtual clock: a delay past the provider native maximum lasts at least that long in real time';

const caseArb = fc.record({
  /** Share of the way from the native maximum to the portable 7 days. */
  reach: fc.oneof(fc.constantFrom(0, 1), fc.double({ min: 0, max: 1, noNaN: true })),
  attributes: fc
    .dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), fc.string({ maxLength: 24, unit: 'grapheme' }), {
      maxKeys: MAX_ATTRIBUTES,
    })
    .map((attributes) => ({ ...attributes })),
  grouped: fc.boolean(),
  /** Shares of the wait at which a consumer looks and must find nothing. */
  peeks: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { maxLength: 5 }),
  /** Release the delivered message with a long delay too, and check it again. */
  releaseAgain: fc.boolean(),
});

/**
 * Delays longer than the provider holds (SQS: 900 s) must still behave as the portable 7 days:
 * on time, never early, attributes and group intact, receive counts kept. Where the Queue bridges
 * them this is the bridge's proof; elsewhere it is the provider's.
 */
export const longDelay = defineProperty({
  id: 'long-delay',
  title:
    'delays past the provider native maximum arrive when due, never early, with attributes, group and receive count intact',
  skipReason: (_caps, timing) => (timing.virtual ? undefined : REAL_TIME_REASON),
  runs: { virtual: 40 },
  build: (harness) =>
    fc.asyncProperty(caseArb, async (input) =>
      withSession(harness, async (session) => {
        const { delay: limits, ordering, receiveCount, retentionSeconds } = session.caps;
        const floor = Math.min(limits.maxSeconds, limits.nativeMaxSeconds + 1);
        const delaySeconds = Math.floor(floor + input.reach * (limits.maxSeconds - floor));
        const groupId = input.grouped && ordering === 'fifo-per-group' ? `g-${session.nonce}` : undefined;
        const envelope = session.envelope('long');
        await session.queue.publish({
          envelope,
          attributes: input.attributes,
          delaySeconds,
          ...(groupId ? { groupId } : {}),
        });
        const first = await expectWhenDue(session, delaySeconds, input.peeks, 'published');
        checkEqual(first.envelope.event_id, envelope.event_id, 'delivered event');
        checkEqual({ ...first.attributes }, input.attributes, 'attributes after a long delay');
        checkEqual(first.groupId, groupId, 'group id after a long delay');
        if (receiveCount) checkEqual(first.receiveCount, 1, 'receive count of the first delivery');
        if (!input.releaseAgain) {
          await first.ack();
          return;
        }
        // Retention counts from the publish (an hour of margin): a provider may drop a message
        // released past it, and the portable contract does not promise otherwise.
        const releaseSeconds = Math.max(0, Math.min(delaySeconds, retentionSeconds - delaySeconds - 3600));
        await first.release({ delaySeconds: releaseSeconds });
        const second = await expectWhenDue(session, releaseSeconds, input.peeks, 'released');
        checkEqual({ ...second.attributes }, input.attributes, 'attributes after a long release');
        if (receiveCount)
          checkEqual(second.receiveCount, first.receiveCount + 1, 'receive count after a long release');
        await second.ack();
      }),
    ),
});

/** Looks at the given shares of the wait and 1 ms before due, then takes the message once due. */
async function expectWhenDue(session: Session, delaySeconds: number, peeks: number[], what: string) {
  const start = session.clock.now();
  const dueMs = delaySeconds * 1000;
  await waitsWhileHeld(session, dueMs, `${what} with a ${delaySeconds} s delay`);
  for (const share of [...peeks].sort((a, b) => a - b)) {
    const at = start + Math.floor(share * dueMs);
    if (at >= start + dueMs - 1) break;
    if (at < session.clock.now()) continue;
    await session.clock.advance(at - session.clock.now());
    await session.expectNothing(
      `${what} with a ${delaySeconds} s delay, ${Math.round(share * 100)} % of the way`,
    );
  }
  await session.clock.advance(start + dueMs - 1 - session.clock.now());
  await session.expectNothing(`${what} with a ${delaySeconds} s delay, 1 ms before due`);
  await session.clock.advance(1 + session.timing.dueSlackMs);
  const got = await session.drain({ ack: false });
  check(
    got.length === 1,
    `${what} with a ${delaySeconds} s delay: expected it once when due, got ${got.length}`,
  );
  return got[0]!;
}

/**
 * A long poll over a message that is not yet due waits out its whole wait and returns empty: a
 * bridge or provider that keeps re-sending the message with no delay answers at once, and spins.
 */
async function waitsWhileHeld(session: Session, dueMs: number, what: string): Promise<void> {
  const wait = Math.min(5, session.caps.longPollMaxSeconds);
  if (wait === 0 || dueMs <= wait * 1000 + 1) return;
  const polling = outcomeOf(
    session.queue.receive({ maxMessages: 1, leaseSeconds: session.longLeaseSeconds, waitSeconds: wait }),
  );
  check(
    await stillPending(polling),
    `${what}: a ${wait} s long poll returned at once, long before it was due`,
  );
  await session.clock.advance(wait * 1000);
  const result = await polling;
  check(result.ok, `${what}: a long poll before due failed: ${String(!result.ok && result.error)}`);
  checkEqual(result.value.length, 0, `${what}: messages from a long poll long before due`);
}
