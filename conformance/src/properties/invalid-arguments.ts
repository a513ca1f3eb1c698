import { MAX_ATTRIBUTES } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, checkRejects, type Session, withSession } from '../support';
import { defineProperty } from './property';

/** A bad argument, named so a counterexample reads as what the caller did wrong. */
type BadCase =
  | { kind: 'attributes'; attributes: unknown; why: string }
  | { kind: 'groupId'; groupId: unknown; why: string }
  | { kind: 'receive'; options: Record<string, unknown>; why: string }
  | { kind: 'extend'; leaseSeconds: unknown; why: string };

const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, 'v']));

const badAttributes = fc.oneof(
  fc
    .integer({ min: 1, max: 3 })
    .map((extra) => ({ attributes: many(MAX_ATTRIBUTES + extra), why: 'too many' })),
  fc
    .constantFrom('', ' x', 'a'.repeat(65), 'queueport.bridge', 'aws.trace', 'AMAZON.x', 'ü', 'a:b')
    .map((name) => ({ attributes: { [name]: 'v' }, why: `name ${JSON.stringify(name)}` })),
  fc
    .constantFrom<unknown>(1, null, true, {}, ['v'], '\uD800')
    .map((value) => ({ attributes: { tenant: value }, why: `value ${JSON.stringify(value)}` })),
  fc
    .constantFrom<unknown>(null, 'tenant=a', ['a'], 7)
    .map((attributes) => ({ attributes, why: 'not an object' })),
);

const badGroupIds = fc
  .constantFrom<unknown>('', 'g'.repeat(129), 'grüppe', 'a b', '\u0007', 12, null)
  .map((groupId) => ({ groupId, why: `groupId ${JSON.stringify(groupId)}` }));

function badReceives(session: Session): fc.Arbitrary<{ options: Record<string, unknown>; why: string }> {
  const { leaseSeconds, batch, longPollMaxSeconds } = session.caps;
  return fc.oneof(
    fc
      .constantFrom<unknown>(0, batch.receive + 1, 1.5, Number.NaN, '2')
      .map((maxMessages) => ({ options: { maxMessages }, why: `maxMessages ${String(maxMessages)}` })),
    fc
      .constantFrom<unknown>(
        leaseSeconds.min - 1,
        leaseSeconds.max + 1,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        '30',
      )
      .map((lease) => ({ options: { leaseSeconds: lease }, why: `leaseSeconds ${String(lease)}` })),
    fc
      .constantFrom<unknown>(-1, longPollMaxSeconds + 1, Number.NaN, '1')
      .map((waitSeconds) => ({ options: { waitSeconds }, why: `waitSeconds ${String(waitSeconds)}` })),
  );
}

/**
 * What a careless caller can get wrong besides the envelope: attributes, group ids, receive
 * options. Each is refused with INVALID_ARGUMENT and enqueues nothing, while the same call at
 * the limits (every portable attribute with the longest names, the longest group id) goes through
 * intact.
 */
export const invalidArguments = defineProperty({
  id: 'invalid-arguments',
  title:
    'bad attributes, group ids and receive options are refused with INVALID_ARGUMENT and enqueue nothing',
  build: (harness) =>
    fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) =>
      withSession(harness, async (session) => {
        const [bad] = fc.sample(
          fc.oneof(
            badAttributes.map((c): BadCase => ({ kind: 'attributes', ...c })),
            badGroupIds.map((c): BadCase => ({ kind: 'groupId', ...c })),
            badReceives(session).map((c): BadCase => ({ kind: 'receive', ...c })),
            badExtensions(session).map((c): BadCase => ({ kind: 'extend', ...c })),
          ),
          { seed, numRuns: 1 },
        );
        await refuse(session, bad!);
        await acceptAtTheLimits(session);
      }),
    ),
});

function badExtensions(session: Session): fc.Arbitrary<{ leaseSeconds: unknown; why: string }> {
  const { min, max } = session.caps.leaseSeconds;
  return fc
    .constantFrom<unknown>(min - 1, max + 1, Number.NaN, Number.NEGATIVE_INFINITY, '30', null)
    .map((leaseSeconds) => ({ leaseSeconds, why: `an extension of ${String(leaseSeconds)} s` }));
}

async function refuse(session: Session, bad: BadCase): Promise<void> {
  const envelope = session.envelope('refused');
  if (bad.kind === 'extend') {
    if (!session.caps.leaseExtension) return;
    await session.queue.publish({ envelope });
    const [delivery] = await session.receive(1);
    check(delivery, 'the published message was not delivered');
    await checkRejects(() => delivery.extendLease(bad.leaseSeconds as number), 'INVALID_ARGUMENT', bad.why);
    await delivery.ack();
    return;
  }
  if (bad.kind === 'receive') {
    await checkRejects(
      () => session.queue.receive(bad.options as Parameters<typeof session.queue.receive>[0]),
      'INVALID_ARGUMENT',
      `receive with ${bad.why}`,
    );
    return;
  }
  const input =
    bad.kind === 'attributes'
      ? { envelope, attributes: bad.attributes as Record<string, string> }
      : { envelope, groupId: bad.groupId as string };
  await checkRejects(() => session.queue.publish(input), 'INVALID_ARGUMENT', `publish with ${bad.why}`);
  await checkRejects(
    () => session.queue.publishBatch([{ envelope: session.envelope('valid-neighbour') }, input]),
    'INVALID_ARGUMENT',
    `a batch holding a publish with ${bad.why}`,
  );
  await session.expectOnlySentinel(`after publishes with ${bad.why} were refused`);
}

async function acceptAtTheLimits(session: Session): Promise<void> {
  const attributes = Object.fromEntries(
    Array.from({ length: MAX_ATTRIBUTES }, (_, i) => [`${String(i).padStart(2, '0')}${'n'.repeat(62)}`, 'v']),
  );
  const grouped = session.caps.ordering === 'fifo-per-group';
  const groupId = grouped ? 'g'.repeat(128) : undefined;
  const envelope = session.envelope('at-limits');
  await session.queue.publish({ envelope, attributes, ...(groupId ? { groupId } : {}) });
  const got = await session.drain({ ack: true });
  check(got.length === 1, `a publish at the limits was delivered ${got.length} times`);
  checkEqual({ ...got[0]!.attributes }, attributes, 'attributes at the limits');
  checkEqual(got[0]!.groupId, groupId, 'group id at the limits');
}
