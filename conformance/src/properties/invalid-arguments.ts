import { type Delivery, MAX_ATTRIBUTES } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, checkRejects, type Session, withSession } from '../support';
import { defineProperty } from './property';

/** A bad argument, named so a failure reads as what the caller did wrong. */
type BadCase =
  | { kind: 'attributes'; attributes: unknown; why: string }
  | { kind: 'groupId'; groupId: unknown; why: string }
  | { kind: 'publishBatch'; entries: unknown; why: string }
  | { kind: 'receive'; options: Record<string, unknown>; why: string }
  | { kind: 'extend'; leaseSeconds: unknown; why: string }
  | {
      kind: 'settleBatch';
      method: 'ackBatch' | 'releaseBatch';
      entries: (d: Delivery) => unknown;
      why: string;
    };

const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, 'v']));

/** Not arrays, or arrays with a hole: a batch call must refuse them before sending anything. */
const NOT_ARRAYS: ReadonlyArray<{ value: unknown; why: string }> = [
  { value: null, why: 'null' },
  { value: {}, why: 'an object' },
  { value: 'entries', why: 'a string' },
];

/**
 * Every bad argument the portable contract names, checked in every run (in an order the run's
 * seed shuffles): sampling one per run left whole rules to chance at a fixed seed.
 */
function badCases(session: Session): BadCase[] {
  const { leaseSeconds, ordering } = session.caps;
  const cases: BadCase[] = [];
  for (let extra = 1; extra <= 3; extra++) {
    cases.push({
      kind: 'attributes',
      attributes: many(MAX_ATTRIBUTES + extra),
      why: `${MAX_ATTRIBUTES + extra} attributes`,
    });
  }
  for (const name of ['', ' x', 'a'.repeat(65), 'queueport.bridge', 'aws.trace', 'AMAZON.x', 'ü', 'a:b']) {
    cases.push({
      kind: 'attributes',
      attributes: { [name]: 'v' },
      why: `attribute name ${JSON.stringify(name)}`,
    });
  }
  for (const value of [1, null, true, {}, ['v'], '\uD800', 'ok\uDC00']) {
    cases.push({
      kind: 'attributes',
      attributes: { tenant: value },
      why: `attribute value ${JSON.stringify(value)}`,
    });
  }
  for (const attributes of [null, 'tenant=a', ['a'], 7]) {
    cases.push({ kind: 'attributes', attributes, why: `attributes ${JSON.stringify(attributes)}` });
  }
  for (const groupId of ['', 'g'.repeat(129), 'grüppe', 'a b', '\u0007', 12, null]) {
    cases.push({ kind: 'groupId', groupId, why: `groupId ${JSON.stringify(groupId)}` });
  }
  if (ordering !== 'fifo-per-group') {
    // Silently dropping a group would drop the order its publisher relies on.
    cases.push({
      kind: 'groupId',
      groupId: 'g1',
      why: `a groupId on a queue whose ordering is ${JSON.stringify(ordering)}`,
    });
  }
  for (const { value, why } of NOT_ARRAYS) {
    cases.push({ kind: 'publishBatch', entries: value, why: `publishBatch of ${why}` });
    cases.push({ kind: 'settleBatch', method: 'ackBatch', entries: () => value, why: `ackBatch of ${why}` });
    cases.push({
      kind: 'settleBatch',
      method: 'releaseBatch',
      entries: () => value,
      why: `releaseBatch of ${why}`,
    });
  }
  cases.push({
    kind: 'publishBatch',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the bad input under test
    entries: (envelope: unknown) => [{ envelope }, , { envelope }],
    why: 'publishBatch of a sparse array',
  });
  cases.push({
    kind: 'settleBatch',
    method: 'ackBatch',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the bad input under test
    entries: (d) => [d, , d],
    why: 'ackBatch of a sparse array',
  });
  cases.push({
    kind: 'settleBatch',
    method: 'releaseBatch',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the bad input under test
    entries: (d) => [{ delivery: d }, , { delivery: d }],
    why: 'releaseBatch of a sparse array',
  });
  for (const maxMessages of [0, 1.5, Number.NaN, '2']) {
    cases.push({ kind: 'receive', options: { maxMessages }, why: `maxMessages ${String(maxMessages)}` });
  }
  for (const lease of [
    leaseSeconds.min - 1,
    leaseSeconds.max + 1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '30',
  ]) {
    cases.push({ kind: 'receive', options: { leaseSeconds: lease }, why: `leaseSeconds ${String(lease)}` });
  }
  for (const waitSeconds of [-1, Number.NaN, '1']) {
    cases.push({ kind: 'receive', options: { waitSeconds }, why: `waitSeconds ${String(waitSeconds)}` });
  }
  for (const lease of [
    leaseSeconds.min - 1,
    leaseSeconds.max + 1,
    Number.NaN,
    Number.NEGATIVE_INFINITY,
    '30',
    null,
  ]) {
    cases.push({ kind: 'extend', leaseSeconds: lease, why: `an extension of ${String(lease)} s` });
  }
  return cases;
}

/**
 * What a careless caller can get wrong besides the envelope: attributes, group ids, batch
 * arguments, receive and settle options. Each is refused with INVALID_ARGUMENT and enqueues or
 * settles nothing, while the same calls at the limits (every portable attribute with the longest
 * names, the longest group id, the shortest and longest lease) go through intact.
 */
export const invalidArguments = defineProperty({
  id: 'invalid-arguments',
  title:
    'bad attributes, group ids, batches, receive and settle options are refused with INVALID_ARGUMENT and change nothing',
  runs: { virtual: 20, real: 2 },
  build: (harness) =>
    fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) =>
      withSession(harness, async (session) => {
        const all = badCases(session);
        const [order] = fc.sample(fc.shuffledSubarray(all, { minLength: all.length }), { seed, numRuns: 1 });
        const cases = order!;
        for (const bad of cases) await refusePublish(session, bad);
        await session.expectOnlySentinel('after every bad publish was refused');
        for (const bad of cases) {
          if (bad.kind === 'receive') {
            await checkRejects(
              () => session.queue.receive(bad.options as Parameters<typeof session.queue.receive>[0]),
              'INVALID_ARGUMENT',
              `receive with ${bad.why}`,
            );
          }
        }
        await refuseSettles(session, cases);
        await acceptAtTheLimits(session);
      }),
    ),
});

async function refusePublish(session: Session, bad: BadCase): Promise<void> {
  const envelope = session.envelope('refused');
  if (bad.kind === 'publishBatch') {
    const entries = typeof bad.entries === 'function' ? bad.entries(envelope) : bad.entries;
    await checkRejects(
      () => session.queue.publishBatch(entries as Parameters<typeof session.queue.publishBatch>[0]),
      'INVALID_ARGUMENT',
      bad.why,
    );
    return;
  }
  if (bad.kind !== 'attributes' && bad.kind !== 'groupId') return;
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
}

/** Bad settles on a delivery in hand; it must still be held, unsettled, afterwards. */
async function refuseSettles(session: Session, cases: readonly BadCase[]): Promise<void> {
  await session.queue.publish({ envelope: session.envelope('held') });
  const [delivery] = await session.receive(1);
  check(delivery, 'the published message was not delivered');
  for (const bad of cases) {
    if (bad.kind === 'extend' && session.caps.leaseExtension) {
      await checkRejects(() => delivery.extendLease(bad.leaseSeconds as number), 'INVALID_ARGUMENT', bad.why);
    }
    if (bad.kind === 'settleBatch') {
      const entries = bad.entries(delivery);
      await checkRejects(
        () =>
          bad.method === 'ackBatch'
            ? session.queue.ackBatch(entries as Delivery[])
            : session.queue.releaseBatch(entries as Array<{ delivery: Delivery }>),
        'INVALID_ARGUMENT',
        bad.why,
      );
    }
  }
  await session.expectNothing('while the delivery refused bad settles is still leased', { beforeDue: true });
  await delivery.ack();
  await session.expectNothing('after the delivery refused bad settles was acked');
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
  // Past the provider's limits a receive is capped, not refused: portable code need not read
  // the manifest. The message is there, so the capped long poll does not wait.
  await session.queue.publish({ envelope: session.envelope('capped') });
  const capped = await session.queue.receive({
    maxMessages: session.caps.batch.receive + 1,
    waitSeconds: session.caps.longPollMaxSeconds + 1,
    leaseSeconds: session.longLeaseSeconds,
  });
  checkEqual(
    capped.length,
    1,
    'a receive past maxMessages and longPollMaxSeconds, capped, with one message ready',
  );
  await capped[0]!.ack();
  const { min, max } = session.caps.leaseSeconds;
  for (const leaseSeconds of [min, max]) {
    const empty = await session.queue.receive({ maxMessages: session.caps.batch.receive, leaseSeconds });
    checkEqual(
      empty.length,
      0,
      `a receive with leaseSeconds ${leaseSeconds} (the manifest's bound) on an empty queue`,
    );
  }
}
