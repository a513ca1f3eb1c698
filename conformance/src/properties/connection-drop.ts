import { isQueueError } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, checkRejects, outcomeOf, show, withSession } from '../support';
import { defineProperty } from './property';

const OPERATIONS = ['ack', 'release', 'extend'] as const;

/**
 * A provider connection that drops mid-run (a broker restart, a network cut) loses no message
 * and lets no old lease act: what was leased comes back after its lease at the latest, every
 * receipt from before the drop is stale (LEASE_LOST, from the provider or, where it cannot
 * tell, from the Queue), a long poll waiting through the drop ends with nothing or a typed
 * error, and the queue works again afterwards. Runs only where the harness can drop the
 * connection (`dropConnection`).
 */
export const connectionDrop = defineProperty({
  id: 'connection-drop',
  title:
    'after the provider connection drops, leased messages come back, old receipts are stale, and the queue works again',
  skipReason: (_caps, context) =>
    context.dropConnection ? undefined : 'the harness cannot drop the provider connection (dropConnection)',
  runs: { virtual: 40, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        count: fc.integer({ min: 1, max: 3 }),
        leaseSeconds: fc.integer({ min: 1, max: 3600 }),
        operation: fc.constantFrom(...OPERATIONS),
        pollThroughDrop: fc.boolean(),
      }),
      async ({ count, leaseSeconds, operation, pollThroughDrop }) =>
        withSession(harness, async (session) => {
          const drop = session.dropConnection;
          check(drop, 'the harness declares dropsConnection, but its queues have no dropConnection');
          const lease = session.lease(leaseSeconds);
          const envelopes = Array.from({ length: count }, (_, i) => session.envelope(`c${i}`));
          await session.queue.publishBatch(envelopes.map((envelope) => ({ envelope })));
          const held = await session.drain({ ack: false, leaseSeconds: lease });
          checkEqual(held.length, count, 'messages leased before the drop');
          const wait = Math.min(5, session.caps.longPollMaxSeconds);
          const polling =
            pollThroughDrop && wait > 0
              ? outcomeOf(
                  session.queue.receive({
                    maxMessages: count,
                    leaseSeconds: session.longLeaseSeconds,
                    waitSeconds: wait,
                  }),
                )
              : undefined;
          const dropStarted = performance.now();
          await drop();
          // On real time a drop can outlast the leases (a slow admin tool on a busy machine): then
          // the poll may take a message back before the drop, which hands it back once more.
          const outlasted = !session.timing.virtual && performance.now() - dropStarted >= lease * 1000;
          const polled = [];
          if (polling) {
            if (session.timing.virtual) await session.clock.advance(wait * 1000);
            const result = await polling;
            check(
              result.ok || isQueueError(result.error),
              `a long poll waiting through the drop failed untyped: ${String(!result.ok && result.error)}`,
            );
            // A provider may hand the leased messages back at once when their connection drops.
            if (result.ok) polled.push(...result.value);
          }
          await session.clock.advance(lease * 1000 + session.timing.slackMs);
          const drained = await session.drain({ ack: false, leaseSeconds: session.longLeaseSeconds });
          const drainedIds = new Set(drained.map((d) => d.envelope.event_id));
          // Only then may a polled message come back again; the copy drained last holds the lease.
          const again = [
            ...polled.filter((d) => !(outlasted && drainedIds.has(d.envelope.event_id))),
            ...drained,
          ];
          checkEqual(
            again.map((d) => d.envelope.event_id).sort(),
            envelopes.map((e) => e.event_id).sort(),
            `messages back after the drop and their ${lease} s lease, once each`,
          );
          if (session.caps.receiveCount) {
            for (const delivery of again) {
              const before = held.find((d) => d.envelope.event_id === delivery.envelope.event_id)!;
              check(
                delivery.receiveCount > before.receiveCount,
                `receive count ${delivery.receiveCount} after the drop is not higher than ${before.receiveCount}`,
              );
            }
          }
          for (const stale of held) {
            if (operation === 'extend' && !session.caps.leaseExtension) continue;
            await checkRejects(
              () =>
                operation === 'ack'
                  ? stale.ack()
                  : operation === 'release'
                    ? stale.release({ delaySeconds: 0 })
                    : stale.extendLease(lease),
              'LEASE_LOST',
              `${operation} with a receipt from before the connection dropped`,
            );
          }
          const results = await session.queue.ackBatch(again);
          const failed = results.filter((r) => !r.ok);
          check(failed.length === 0, `acking the redelivered messages after the drop: ${show(failed)}`);
          await session.expectOnlySentinel('after the reconnect');
        }),
    ),
});
