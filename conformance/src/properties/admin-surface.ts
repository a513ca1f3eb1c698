import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

/**
 * What a drill reads from the provider's admin surface must be true: the depth counts what the
 * queue holds (waiting, delayed and leased), the oldest ready message has an age, dead letters
 * are counted, a redrive brings them back to be delivered, and a purge leaves nothing behind.
 */
export const adminSurface = defineProperty({
  id: 'admin-surface',
  title: 'the admin surface counts depth and dead letters, redrives them back, and purges',
  skipReason: (_caps, context) =>
    context.inspect ? undefined : 'the harness shows no admin surface (inspect)',
  runs: { virtual: 30, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        waiting: fc.integer({ min: 0, max: 5 }),
        delayed: fc.integer({ min: 0, max: 3 }),
        dead: fc.integer({ min: 0, max: 3 }),
      }),
      async ({ waiting, delayed, dead }) =>
        withSession(harness, async (session) => {
          const inspect = session.inspect;
          if (!inspect?.stats) return;
          // Delayed messages only where waiting out their delay costs nothing.
          const held = session.timing.virtual ? delayed : 0;
          const publishes = [
            ...Array.from({ length: waiting + dead }, (_, i) => ({ envelope: session.envelope(`w${i}`) })),
            ...Array.from({ length: held }, (_, i) => ({
              envelope: session.envelope(`d${i}`),
              delaySeconds: 600,
            })),
          ];
          if (publishes.length > 0) await session.queue.publishBatch(publishes);
          const empty = publishes.length === 0;
          const before = await inspect.stats();
          if (before.depth !== null) checkEqual(before.depth, publishes.length, 'depth after publishing');
          if (waiting + dead > 0 && before.oldestReadyAgeSeconds !== null) {
            check(before.oldestReadyAgeSeconds >= 0, `oldest ready age ${before.oldestReadyAgeSeconds}`);
          }
          if (empty) checkEqual(before.oldestReadyAgeSeconds, null, 'oldest ready age of an empty queue');
          if (dead > 0 && session.caps.deadLetter.move) {
            const taken = await session.receive(Math.min(dead, session.caps.batch.receive));
            for (const delivery of taken) await delivery.deadLetter('admin-surface');
            const after = await inspect.stats();
            if (after.deadLetters !== null)
              checkEqual(after.deadLetters, taken.length, 'dead letters counted');
            if (after.depth !== null)
              checkEqual(after.depth, publishes.length - taken.length, 'depth after dead-lettering');
            if (inspect.redriveDeadLetters) {
              checkEqual(
                await inspect.redriveDeadLetters(taken.length),
                taken.length,
                'dead letters redriven',
              );
              const back = await inspect.stats();
              if (back.deadLetters !== null)
                checkEqual(back.deadLetters, 0, 'dead letters after the redrive');
              if (back.depth !== null) checkEqual(back.depth, publishes.length, 'depth after the redrive');
            }
          }
          if (inspect.purge) {
            await inspect.purge();
            const purged = await inspect.stats();
            if (purged.depth !== null) checkEqual(purged.depth, 0, 'depth after a purge');
            if (session.timing.virtual) await session.clock.advance(601_000);
            await session.expectNothing('after a purge');
          }
        }),
    ),
});
