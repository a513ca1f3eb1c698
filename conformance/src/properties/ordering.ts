import fc from 'fast-check';
import { check, checkEqual, outcomeOf, type Session, show, stillPending, withSession } from '../support';
import { defineProperty } from './property';

const scriptArb = fc.record({
  groups: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 12 }),
  /** For each delivery in turn: ack it (true) or release it to be delivered again (false, once per message). */
  acks: fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
});

export const ordering = defineProperty({
  id: 'ordering',
  title: 'messages are delivered in publish order where the manifest declares ordering',
  skipReason: (caps) => (caps.ordering === 'none' ? 'the manifest declares no ordering' : undefined),
  build: (harness) =>
    fc.asyncProperty(scriptArb, async ({ groups, acks }) =>
      withSession(harness, async (session) => {
        if (session.caps.ordering === 'fifo-per-group') await perGroup(session, groups, acks);
        else await singleConsumer(session, groups.length);
      }),
    ),
});

/**
 * Model check: every delivery must be the oldest unacked message of its group, and while a
 * group has a message in hand no other message of that group may be handed out.
 */
async function perGroup(session: Session, groups: number[], acks: boolean[]): Promise<void> {
  const remaining = new Map<string, string[]>();
  const groupOf = new Map<string, string>();
  for (const [i, g] of groups.entries()) {
    const envelope = session.envelope(`m${i}`);
    const groupId = `g${g}`;
    await session.queue.publish({ envelope, groupId });
    remaining.set(groupId, [...(remaining.get(groupId) ?? []), envelope.event_id]);
    groupOf.set(envelope.event_id, groupId);
  }
  const releasedOnce = new Set<string>();
  let decision = 0;
  for (let step = 0; [...remaining.values()].some((ids) => ids.length > 0); step++) {
    check(step < groups.length * 4 + 8, `stuck: ${show(Object.fromEntries(remaining))} never delivered`);
    const inHand = await session.receive();
    check(inHand.length > 0, `nothing delivered while ${show(Object.fromEntries(remaining))} wait`);
    // Asking again while holding the first batch: held groups must stay blocked.
    const more = await session.receive();
    const held = new Set(inHand.map((d) => groupOf.get(d.envelope.event_id)));
    const waiting = [...remaining.values()].reduce((n, ids) => n + ids.length, 0) - inHand.length;
    if (more.length === 0 && waiting > 0) await pollWhileBlocked(session, waiting);
    for (const d of more) {
      const g = groupOf.get(d.envelope.event_id);
      check(
        !held.has(g),
        `${d.envelope.event_id} of group ${g} was delivered while another message of ${g} was leased`,
      );
    }
    // Messages of one group released in this batch stay at the front of `remaining`, so the
    // next one of that group must be the one behind them.
    const releasedInBatch = new Map<string, number>();
    for (const delivery of [...inHand, ...more]) {
      const id = delivery.envelope.event_id;
      const g = groupOf.get(id)!;
      const behind = releasedInBatch.get(g) ?? 0;
      const expected = remaining.get(g)![behind];
      check(
        id === expected,
        `group ${g}: delivered ${id} but ${expected} was published before it and is not acked`,
      );
      // Once a group's message is released, later ones of that batch follow it back: acking them
      // would be the consumer breaking the order, not the queue.
      if (behind > 0 || (!releasedOnce.has(id) && !acks[decision++ % acks.length])) {
        releasedInBatch.set(g, behind + 1);
        releasedOnce.add(id);
        await delivery.release();
      } else {
        remaining.get(g)!.shift();
        await delivery.ack();
      }
    }
  }
}

/**
 * Every message left is visible but blocked behind its group's leased head: a long poll must
 * wait out its time and come back empty. A provider that takes a blocked message for a ready one
 * answers at once (or, timing its wake-up by it, again and again: a busy loop).
 */
async function pollWhileBlocked(session: Session, waiting: number): Promise<void> {
  const wait = Math.min(5, session.caps.longPollMaxSeconds);
  if (!session.timing.virtual || wait === 0) return;
  const polling = outcomeOf(
    session.queue.receive({
      maxMessages: session.caps.batch.receive,
      leaseSeconds: session.longLeaseSeconds,
      waitSeconds: wait,
    }),
  );
  check(
    await stillPending(polling),
    `a ${wait} s long poll returned at once while the only ${waiting} messages left were blocked behind their groups' leased heads`,
  );
  await session.clock.advance(wait * 1000);
  const result = await polling;
  check(result.ok, `a long poll over blocked groups failed: ${String(!result.ok && result.error)}`);
  checkEqual(result.value.length, 0, 'messages from a long poll while every group was blocked');
}

/** One consumer taking one message at a time sees exactly publish order. */
async function singleConsumer(session: Session, count: number): Promise<void> {
  const published: string[] = [];
  for (let i = 0; i < count; i++) {
    const envelope = session.envelope(`m${i}`);
    await session.queue.publish({ envelope });
    published.push(envelope.event_id);
  }
  const received: string[] = [];
  for (let i = 0; i < count + 2; i++) {
    const [delivery] = await session.receive(1);
    if (!delivery) break;
    received.push(delivery.envelope.event_id);
    await delivery.ack();
  }
  checkEqual(received, published, 'order seen by a single consumer');
}
