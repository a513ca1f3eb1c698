import type { Capabilities, DeadLetterRecord } from '@queueport/core';
import fc from 'fast-check';
import { check, type Session, withSession } from '../support';
import { defineProperty } from './property';

function noDeadLetters(caps: Capabilities): string | undefined {
  return caps.deadLetter.move || caps.deadLetter.redriveAfterReceives !== null
    ? undefined
    : 'the manifest declares neither moving to dead letters nor a redrive';
}

/**
 * Dead letters as declared: a message moved now is never delivered again and is found among the
 * dead letters; where the provider redrives after N receives, the (N+1)th receive finds nothing.
 */
export const deadLetters = defineProperty({
  id: 'dead-letters',
  title:
    'a dead-lettered message is never delivered again and lands in the dead letters, now or after N receives',
  skipReason: noDeadLetters,
  runs: { virtual: 40, real: 2 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({
        how: fc.constantFrom('move', 'redrive'),
        reason: fc.string({ minLength: 1, maxLength: 60 }),
      }),
      async ({ how, reason }) =>
        withSession(harness, async (session) => {
          const { move, redriveAfterReceives } = session.caps.deadLetter;
          const mode = (how === 'move' && move) || redriveAfterReceives === null ? 'move' : 'redrive';
          const envelope = session.envelope('dead');
          await session.queue.publish({ envelope });
          const lease = session.lease(30);
          if (mode === 'move') {
            const [delivery] = await session.receive(1, lease);
            check(delivery, 'the published message was not delivered');
            await delivery.deadLetter(reason);
          } else {
            for (let receive = 1; receive <= redriveAfterReceives!; receive++) {
              const [delivery] = await session.receive(1, lease);
              check(
                delivery,
                `receive ${receive} of ${redriveAfterReceives} found nothing before the redrive`,
              );
              await session.clock.advance(lease * 1000 + session.timing.slackMs);
            }
          }
          await session.clock.advance(lease * 1000 + session.timing.slackMs);
          await session.expectNothing(
            mode === 'move'
              ? 'after it was moved to the dead letters'
              : `after ${redriveAfterReceives} receives`,
          );
          await expectDeadLetter(session, envelope.event_id);
        }),
    ),
});

async function expectDeadLetter(session: Session, eventId: string): Promise<void> {
  if (!session.inspect) return;
  const list = session.inspect.deadLetters;
  if (!list) {
    session.note(
      'whether it is among the dead letters: the admin surface cannot list them (listDeadLetters)',
    );
    return;
  }
  const found = (await list()).some((dead) => eventIdOf(dead) === eventId);
  check(found, `${eventId} is not among the dead letters`);
}

function eventIdOf(dead: DeadLetterRecord): string | undefined {
  if (dead.eventId) return dead.eventId;
  try {
    return (JSON.parse(dead.body) as { event_id?: string }).event_id;
  } catch {
    return undefined;
  }
}
