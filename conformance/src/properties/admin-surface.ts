import fc from 'fast-check';
import { check, checkEqual, outcomeOf, type Session, stillPending, withSession } from '../support';
import { defineProperty } from './property';

/** How far a provider's oldest-message age may be off: providers report it in whole seconds. */
const AGE_TOLERANCE_SECONDS = 1;

/**
 * What a drill reads from the provider's admin surface must be true: the depth counts what the
 * queue holds (waiting, delayed and leased), the oldest ready message has its age (delayed ones
 * are not ready, however old), dead letters are counted, a redrive brings them back to be
 * delivered (waking a consumer that waits), and a purge leaves nothing behind.
 */
export const adminSurface = defineProperty({
  id: 'admin-surface',
  title: 'the admin surface counts depth, oldest age and dead letters, redrives them back, and purges',
  skipReason: (_caps, context) =>
    context.inspect ? undefined : 'the harness shows no admin surface (inspect)',
  runs: { virtual: 30, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        waiting: fc.integer({ min: 0, max: 5 }),
        delayed: fc.integer({ min: 0, max: 3 }),
        dead: fc.integer({ min: 0, max: 3 }),
        /** Seconds between the delayed publishes, the first and second ready ones, and the look. */
        gaps: fc.tuple(
          fc.integer({ min: 0, max: 30 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 1, max: 30 }),
        ),
      }),
      async ({ waiting, delayed, dead, gaps }) =>
        withSession(harness, async (session) => {
          const inspect = session.inspect;
          // The skip decision sees only `harness.inspects`: a harness that declares it must show
          // stats too, or this property would pass having looked at nothing.
          check(inspect?.stats, `the harness declares inspects, but its queues show no inspect.stats`);
          // Delayed messages only where waiting out their delay costs nothing.
          const held = session.timing.virtual ? delayed : 0;
          const ready = waiting + dead;
          const publishes = await publishAtAges(session, { held, ready, gaps });
          const before = await inspect.stats();
          if (before.depth !== null) checkEqual(before.depth, publishes, 'depth after publishing');
          else session.note(UNCHECKED.depth);
          checkOldestAge(session, before.oldestReadyAgeSeconds, { held, ready, gaps });
          if (!session.caps.deadLetter.move) session.note(UNCHECKED.move);
          else if (dead > 0) await checkDeadLetters(session, inspect, { dead, publishes });
          if (!inspect.purge) session.note(UNCHECKED.purge);
          else {
            await inspect.purge();
            const purged = await inspect.stats();
            if (purged.depth !== null) checkEqual(purged.depth, 0, 'depth after a purge');
            if (session.timing.virtual) await session.clock.advance(601_000);
            await session.expectNothing('after a purge');
          }
        }),
    ),
});

type Inspect = NonNullable<Session['inspect']>;

/**
 * What the property leaves unchecked where the admin surface says nothing (a null count) or
 * lacks a call: said in the report, so a pass never stands for checks that were not made.
 */
const UNCHECKED = {
  depth: 'depth: the admin surface reports it as null (unknown)',
  age: 'oldest ready age: the admin surface reports it as null while messages are ready',
  deadLetters: 'dead-letter count: the admin surface reports it as null (unknown)',
  move: 'dead-letter counts and redrive: the manifest declares no deadLetter.move',
  redrive: 'redrive of dead letters: the admin surface has no redriveDeadLetters',
  purge: 'purge: the admin surface has no purge',
} as const;

/**
 * On virtual time the age is known: the first ready publish was gaps[1] + gaps[2] s ago. The
 * delayed messages are older and must not count: they are not ready. With nothing ready (empty,
 * or only delayed messages) there is no age to report.
 */
function checkOldestAge(
  session: Session,
  age: number | null,
  { held, ready, gaps }: { held: number; ready: number; gaps: [number, number, number] },
): void {
  if (ready === 0) {
    checkEqual(
      age,
      null,
      held === 0
        ? 'oldest ready age of an empty queue'
        : `oldest ready age when only ${held} delayed messages are held`,
    );
    return;
  }
  if (age === null) {
    session.note(UNCHECKED.age);
    return;
  }
  if (!session.timing.virtual) {
    check(age >= 0, `oldest ready age ${age} s`);
    return;
  }
  const expected = gaps[1] + gaps[2];
  check(
    Math.abs(age - expected) <= AGE_TOLERANCE_SECONDS,
    `oldest ready age ${age} s, expected ${expected} s (ready messages published ${expected} s and ${gaps[2]} s ago, delayed ones ${gaps.reduce((a, b) => a + b)} s ago)`,
  );
}

/**
 * Dead-letters up to `dead` messages and checks the counts; where the admin surface redrives,
 * brings them back, and on virtual time checks that a long poll waiting on the drained queue
 * gets them at once.
 */
async function checkDeadLetters(
  session: Session,
  inspect: Inspect,
  { dead, publishes }: { dead: number; publishes: number },
): Promise<void> {
  const taken = await session.receive(Math.min(dead, session.caps.batch.receive));
  for (const delivery of taken) await delivery.deadLetter('admin-surface');
  const after = await inspect.stats!();
  if (after.deadLetters !== null) checkEqual(after.deadLetters, taken.length, 'dead letters counted');
  else session.note(UNCHECKED.deadLetters);
  if (after.depth !== null) checkEqual(after.depth, publishes - taken.length, 'depth after dead-lettering');
  if (!inspect.redriveDeadLetters) {
    session.note(UNCHECKED.redrive);
    return;
  }
  const waits = session.timing.virtual && session.caps.longPollMaxSeconds > 0 && taken.length > 0;
  const acked = waits ? (await session.drain({ ack: true })).length : 0;
  const polling = waits ? outcomeOf(pollOnEmpty(session)) : undefined;
  if (polling) check(await stillPending(polling), 'a long poll on the drained queue returned at once');
  checkEqual(await inspect.redriveDeadLetters(taken.length), taken.length, 'dead letters redriven');
  if (polling) {
    check(!(await stillPending(polling)), 'a waiting long poll slept through a redrive');
    const result = await polling;
    check(result.ok, `the long poll woken by a redrive failed: ${String(!result.ok && result.error)}`);
    check(result.value.length > 0, 'the long poll woken by a redrive returned nothing');
  }
  const back = await inspect.stats!();
  if (back.deadLetters !== null) checkEqual(back.deadLetters, 0, 'dead letters after the redrive');
  if (back.depth !== null) checkEqual(back.depth, publishes - acked, 'depth after the redrive');
}

/**
 * Publishes `held` delayed messages, then (gaps[0] s later) the first half of the ready ones,
 * then (gaps[1] s later) the rest, and lets gaps[2] s pass. Returns how many were published.
 */
async function publishAtAges(
  session: Session,
  { held, ready, gaps }: { held: number; ready: number; gaps: [number, number, number] },
): Promise<number> {
  const virtual = session.timing.virtual;
  const step = async (seconds: number) => {
    if (virtual) await session.clock.advance(seconds * 1000);
  };
  const firstHalf = Math.ceil(ready / 2);
  const batches = [
    Array.from({ length: held }, (_, i) => ({ envelope: session.envelope(`d${i}`), delaySeconds: 600 })),
    Array.from({ length: firstHalf }, (_, i) => ({ envelope: session.envelope(`w${i}`) })),
    Array.from({ length: ready - firstHalf }, (_, i) => ({
      envelope: session.envelope(`w${firstHalf + i}`),
    })),
  ];
  for (const [index, batch] of batches.entries()) {
    if (batch.length > 0) await session.queue.publishBatch(batch);
    await step(gaps[index]!);
  }
  return held + ready;
}

function pollOnEmpty(session: Session) {
  return session.queue.receive({
    maxMessages: session.caps.batch.receive,
    leaseSeconds: session.longLeaseSeconds,
    waitSeconds: Math.min(5, session.caps.longPollMaxSeconds),
  });
}
