import { QueueError } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { defineProperty } from './property';

/**
 * A provider that ends a hold on its own (SQS after 12 hours, RabbitMQ at its consumer timeout,
 * when it closes the channel) must declare `maxHoldSeconds`, and an extension that would end
 * past it is refused as INVALID_ARGUMENT (`reason: 'max-hold'`) while the lease it had still
 * holds: the message can still be acked, and nothing else is delivered meanwhile.
 */
export const maxHold = defineProperty({
  id: 'max-hold',
  title: 'an extension past the declared maximum hold is refused, and the lease it had still holds',
  runs: { virtual: 10, real: 1 },
  skipReason: (caps, context) => {
    if (caps.maxHoldSeconds === undefined) return 'the manifest declares no maximum hold';
    if (!caps.leaseExtension) return 'the manifest declares no lease extension';
    // Past leaseSeconds.max the hold is only reached by waiting for it, on a real clock hours.
    if (!context.virtual && caps.maxHoldSeconds > caps.leaseSeconds.max) {
      return `reaching a ${caps.maxHoldSeconds} s hold past the ${caps.leaseSeconds.max} s lease maximum takes real waiting`;
    }
    return undefined;
  },
  build: (harness) =>
    fc.asyncProperty(fc.integer({ min: 1, max: 5 }), async (elapsedSeconds) =>
      withSession(harness, async (session) => {
        const hold = session.caps.maxHoldSeconds!;
        const { min, max } = session.caps.leaseSeconds;
        const envelope = session.envelope('held');
        await session.queue.publish({ envelope });
        const lease = Math.max(1, min, Math.min(max, hold));
        const [delivery] = await session.receive(1, lease);
        check(delivery, 'the published message was not delivered');
        // Whole leases, each asked for before the last ends, until one would pass the hold: at
        // once where the hold is within one lease, round after round (virtual time) where not.
        let refusal: unknown;
        const step = Math.max(1, lease - 1);
        for (let round = 0; round < 2 + Math.ceil(hold / step) && !refusal; round++) {
          const seconds = round === 0 ? Math.min(elapsedSeconds, step) : step;
          await session.clock.advance(session.timing.virtual ? seconds * 1000 : 1000);
          refusal = await delivery.extendLease(lease).then(
            () => undefined,
            (error: unknown) => error,
          );
        }
        check(
          refusal instanceof QueueError &&
            refusal.code === 'INVALID_ARGUMENT' &&
            refusal.details.reason === 'max-hold',
          `extensions went on past the declared ${hold} s hold (got ${String(refusal)})`,
        );
        await session.expectNothing('after the refused extension');
        await delivery.ack();
        checkEqual(delivery.envelope.event_id, envelope.event_id, 'held event');
        await session.expectOnlySentinel('after acking the held message');
      }),
    ),
});
