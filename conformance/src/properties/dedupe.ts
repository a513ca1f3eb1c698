import fc from 'fast-check';
import { checkEqual, withSession } from '../support';
import { defineProperty } from './property';

const stepArb = fc.record({
  id: fc.integer({ min: 0, max: 2 }),
  /** Share of the window that passes before this publish. */
  gap: fc.double({ min: 0, max: 1, noNaN: true }),
  /** Receive and ack what is there before publishing: a duplicate after the original was consumed. */
  consumeFirst: fc.boolean(),
});

export const dedupe = defineProperty({
  id: 'dedupe',
  title: 'the same event id published repeatedly within the declared dedupe window is delivered once',
  skipReason: (caps) => (caps.dedupe.kind === 'none' ? 'the manifest declares no deduplication' : undefined),
  build: (harness) =>
    fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 10 }), async (steps) =>
      withSession(harness, async (session) => {
        const { dedupe: mode } = session.caps;
        const windowMs = mode.kind === 'window' ? mode.windowSeconds * 1000 : 0;
        // Spread the gaps so every publish stays inside the window opened by the very first.
        const gapScale = windowMs > 0 ? (windowMs - 1) / steps.length : 0;
        const delivered = new Map<string, number>();
        const count = (ids: string[]) => {
          for (const id of ids) delivered.set(id, (delivered.get(id) ?? 0) + 1);
        };
        const published = new Set<string>();
        for (const step of steps) {
          if (session.timing.virtual && gapScale > 0)
            await session.clock.advance(Math.floor(step.gap * gapScale));
          // While-retained dedupe forgets an id once its message is acked; consuming first would
          // be outside what that manifest promises.
          if (step.consumeFirst && mode.kind === 'window') {
            count((await session.drain({ ack: true })).map((d) => d.envelope.event_id));
          }
          const envelope = session.envelope(`e${step.id}`);
          const first = !published.has(envelope.event_id);
          published.add(envelope.event_id);
          const receipt = await session.queue.publish({ envelope });
          // A repeat may be reported as one where the provider can tell; a first publish never is.
          if (first)
            checkEqual(
              receipt.duplicate,
              false,
              `duplicate flag of the first publish of ${envelope.event_id}`,
            );
        }
        count((await session.drain({ ack: true })).map((d) => d.envelope.event_id));
        checkEqual(
          [...published].sort().map((id) => [id, delivered.get(id) ?? 0]),
          [...published].sort().map((id) => [id, 1]),
          'deliveries per event id',
        );
      }),
    ),
});
