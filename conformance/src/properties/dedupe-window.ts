import type { Capabilities } from '@queueport/core';
import fc from 'fast-check';
import { checkEqual, withSession } from '../support';
import { defineProperty } from './property';

function reason(caps: Capabilities, virtual: boolean, maxRealWaitSeconds: number): string | undefined {
  if (caps.dedupe.kind === 'none') return 'the manifest declares no deduplication';
  if (caps.dedupe.kind === 'window' && !virtual && caps.dedupe.windowSeconds > maxRealWaitSeconds) {
    return `needs a virtual clock: a ${caps.dedupe.windowSeconds} s dedupe window is longer than the real-time budget`;
  }
  return undefined;
}

/**
 * The dedupe promise at its edges: a repeat just inside the declared window is absorbed, and a
 * publish after it (after the ack, where dedupe lasts while retained) is a new delivery. A
 * window a few seconds short, or dedupe that never forgets, fails here.
 */
export const dedupeWindow = defineProperty({
  id: 'dedupe-window',
  title: 'a repeat just inside the dedupe window is absorbed, and one after it is delivered again',
  skipReason: (caps, context) => reason(caps, context.virtual, context.maxRealWaitSeconds),
  runs: { virtual: 60, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        insideMs: fc.integer({ min: 1, max: 2000 }),
        afterMs: fc.integer({ min: 0, max: 2000 }),
        consumeBetween: fc.boolean(),
      }),
      async ({ insideMs, afterMs, consumeBetween }) =>
        withSession(harness, async (session) => {
          const { dedupe } = session.caps;
          const envelope = session.envelope('edge');
          // Each publish marks itself in an attribute, so the check sees which one got through.
          const delivered: string[] = [];
          const drain = async () => {
            delivered.push(...(await session.drain({ ack: true })).map((d) => d.attributes.publish ?? '?'));
          };
          const publish = (n: number) =>
            session.queue.publish({ envelope, attributes: { publish: String(n) } });
          await publish(1);
          const started = session.clock.now();
          if (dedupe.kind === 'window') {
            const windowMs = dedupe.windowSeconds * 1000;
            const inside = session.timing.virtual ? Math.max(0, windowMs - Math.min(insideMs, windowMs)) : 0;
            await session.clock.advance(inside);
            if (consumeBetween) await drain();
            await publish(2);
            const after = session.timing.virtual ? afterMs : session.timing.slackMs;
            await session.clock.advance(started + windowMs + after - session.clock.now());
          } else {
            await publish(2);
            // While-retained dedupe forgets an id only once its message is gone.
            await drain();
          }
          await publish(3);
          await drain();
          checkEqual(delivered, ['1', '3'], 'publishes delivered: the first, and the one after the window');
        }),
    ),
});
