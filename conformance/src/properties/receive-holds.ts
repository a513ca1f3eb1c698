import fc from 'fast-check';
import { check, show, withSession } from '../support';
import { defineProperty } from './property';

/**
 * A receive holds what it returns and nothing else. A driver that prefetches (a long poll that
 * leases a whole batch, or a broker that pushes every ready message to the one consumer) and
 * hands the rest out later has leased those under the first receive's terms: other consumers
 * cannot have them, and they come back when the first receive's lease ends, though a later
 * receive handed them out under a longer one.
 */
export const receiveHolds = defineProperty({
  id: 'receive-holds',
  title:
    'a receive leases only what it returns: the other ready messages go to the next receive, under its lease',
  runs: { virtual: 40, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        take: fc.integer({ min: 1, max: 10 }),
        others: fc.integer({ min: 1, max: 12 }),
        leaseSeconds: fc.integer({ min: 1, max: 600 }),
      }),
      async ({ take, others, leaseSeconds }) =>
        withSession(harness, async (session) => {
          const max = Math.min(take, session.caps.batch.receive);
          const longLease = session.longLeaseSeconds;
          const lease = Math.min(session.lease(leaseSeconds), Math.max(1, longLease - 1));
          check(
            lease < longLease,
            `the manifest's leases (${session.caps.leaseSeconds.min} to ${session.caps.leaseSeconds.max} s) leave no short and long lease apart`,
          );
          const envelopes = Array.from({ length: max + others }, (_, i) => session.envelope(`h${i}`));
          await session.queue.publishBatch(envelopes.map((envelope) => ({ envelope })));
          const firstAt = session.clock.now();
          const first = await session.receive(max, lease);
          check(
            first.length >= 1 && first.length <= max,
            `a receive of at most ${max} with ${envelopes.length} ready returned ${first.length}`,
          );
          const firstIds = new Set(first.map((d) => d.envelope.event_id));
          const rest = await session.drain({ ack: false, leaseSeconds: longLease });
          const withinFirstLease = session.clock.now() - firstAt < lease * 1000;
          const again = rest.filter((d) => firstIds.has(d.envelope.event_id));
          check(
            again.length === 0 || !withinFirstLease,
            `${show(again.map((d) => d.envelope.event_id))} came back within the first receive's ${lease} s lease`,
          );
          const later = rest.filter((d) => !firstIds.has(d.envelope.event_id));
          const laterIds = new Set(later.map((d) => d.envelope.event_id));
          const missing = envelopes
            .map((e) => e.event_id)
            .filter((id) => !firstIds.has(id) && !laterIds.has(id));
          check(
            missing.length === 0,
            `after a receive of ${max} returned ${first.length}, the next receives did not get ${missing.length} of the ${envelopes.length - first.length} other ready messages: held by the first receive`,
          );
          // The first receive's lease runs out: only what it returned may come back.
          await session.clock.advance(lease * 1000 + session.timing.slackMs);
          const back = await session.drain({ ack: true, leaseSeconds: longLease });
          const leakedIds = back.map((d) => d.envelope.event_id).filter((id) => laterIds.has(id));
          check(
            leakedIds.length === 0,
            `${show(leakedIds)}, handed out by a later receive under a ${longLease} s lease, came back when the first receive's ${lease} s lease ran out: the first receive had leased them too`,
          );
          await session.queue.ackBatch(later);
        }),
    ),
});
