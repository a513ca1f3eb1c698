import fc from 'fast-check';
import { check, checkEqual, type Session, show, withSession } from '../support';
import { defineProperty } from './property';

/** Always among the delays: past a 10-bit seconds field, and the portable maximum. */
const PINNED_SECONDS = 1024;

const caseArb = fc.record({
  /** Further delays, as shares of the way from the shortest checked delay to the maximum. */
  shares: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }),
});

/**
 * A long delay is honoured, not just accepted. `delay-bounds` and `long-delay` wait delays out
 * only where time is virtual; on a real provider a delay longer than a few seconds was checked
 * right after its publish only, so a provider that cut long delays short (a 10-bit field, a
 * delay taken as milliseconds, a maximum taken as "now") passed. Here every run publishes delays
 * across the range, 1,024 s and the maximum among them at every seed, waits a bounded while
 * (on real time) and finds them all still held and, where the admin surface counts, counted
 * as held, not ready. On virtual time each is also checked 1 ms before and once it is due.
 */
export const longDelayHidden = defineProperty({
  id: 'long-delay-hidden',
  title: 'long delays, 1,024 s and the maximum among them, stay hidden and counted as held until due',
  runs: { virtual: 20, real: 1 },
  build: (harness) =>
    fc.asyncProperty(caseArb, async ({ shares }) =>
      withSession(harness, async (session) => {
        const delays = delaysOf(session, shares);
        const published = delays.map((delaySeconds, i) => ({
          envelope: session.envelope(`held-${i}-${delaySeconds}`),
          delaySeconds,
        }));
        await session.queue.publishBatch(published);
        if (!session.timing.virtual) {
          const waitMs = session.timing.maxRealWaitSeconds * 1000 + session.timing.slackMs;
          await session.clock.advance(waitMs);
          await session.expectNothing(`${waitMs / 1000} s after publishing with delays of ${show(delays)} s`);
        }
        await expectCountedAsHeld(session, published.length);
        if (session.timing.virtual) await expectEachWhenDue(session, published);
      }),
    ),
});

/**
 * The delays a run publishes: from just past what a real-time run waits (a few seconds) to the
 * maximum, always 1,024 s (where the manifest allows it), the native maximum where the Queue
 * bridges past it, and the maximum.
 */
function delaysOf(session: Session, shares: readonly number[]): number[] {
  const { maxSeconds, nativeMaxSeconds } = session.caps.delay;
  const { timing } = session;
  const waited = timing.virtual
    ? 1
    : timing.maxRealWaitSeconds + timing.slackMs / 1000 + 2 * timing.receiveWaitSeconds;
  const floor = Math.min(maxSeconds, Math.ceil(waited) + 5);
  const pinned = [PINNED_SECONDS, nativeMaxSeconds, maxSeconds].filter((d) => d >= floor && d <= maxSeconds);
  const drawn = shares.map((share) => Math.floor(floor + share * (maxSeconds - floor)));
  return [...new Set([...pinned, ...drawn])].sort((a, b) => a - b);
}

/** Where the admin surface counts: every message held, none ready. */
async function expectCountedAsHeld(session: Session, count: number): Promise<void> {
  const stats = session.inspect?.stats;
  if (!stats) return;
  const seen = await stats();
  if (seen.depth === null)
    session.note('whether delayed messages are counted: the admin surface reports depth as null');
  else checkEqual(seen.depth, count, 'depth while only delayed messages are held');
  checkEqual(seen.oldestReadyAgeSeconds, null, 'oldest ready age while every message is delayed');
}

/** Virtual time: each message is absent 1 ms before it is due and there once it is. */
async function expectEachWhenDue(
  session: Session,
  published: ReadonlyArray<{ envelope: { event_id: string }; delaySeconds: number }>,
): Promise<void> {
  const start = session.clock.now();
  const dueOf = new Map(published.map((p) => [p.envelope.event_id, start + p.delaySeconds * 1000]));
  const arrived = new Set<string>();
  const take = async (when: string) => {
    for (const delivery of await session.drain({ ack: true })) {
      const id = delivery.envelope.event_id;
      const due = dueOf.get(id);
      check(due !== undefined && !arrived.has(id), `${when}: received ${id}, published once`);
      check(
        due <= session.clock.now(),
        `${when}: ${id} arrived ${(due - session.clock.now()) / 1000} s before it was due`,
      );
      arrived.add(id);
    }
  };
  for (const { envelope, delaySeconds } of published) {
    const due = dueOf.get(envelope.event_id)!;
    if (arrived.has(envelope.event_id)) continue;
    if (due - 1 > session.clock.now()) {
      await session.clock.advance(due - 1 - session.clock.now());
      await take(`1 ms before a ${delaySeconds} s delay was due`);
    }
    await session.clock.advance(due + session.timing.dueSlackMs - session.clock.now());
    await take(`once a ${delaySeconds} s delay was due`);
    check(
      arrived.has(envelope.event_id),
      `a message with a ${delaySeconds} s delay was not delivered when due`,
    );
  }
}
