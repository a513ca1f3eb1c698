/**
 * receive(options) and the settles that follow (ackBatch, releaseBatch, a delivery's own ack,
 * release, extendLease, deadLetter) with odd options, odd delays and deliveries that are not
 * this queue's. Every call ends in success or a typed QueueError, and a batch settle answers
 * with exactly one outcome per entry.
 */
import { type Delivery, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import fc from 'fast-check';
import { delayArb, oddNumber, oddString, oddValue, optionalOdd } from '../arbitraries';
import { check, outcomeOf } from '../context';
import type { FuzzTarget } from './fuzz-target';

const receiveOptionsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        maxMessages: fc.integer({ min: 1, max: 10 }),
        leaseSeconds: fc.integer({ min: 1, max: 600 }),
        waitSeconds: fc.constantFrom(0, 0.001, 1),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        maxMessages: optionalOdd(fc.integer({ min: 1, max: 10 }), 2),
        leaseSeconds: optionalOdd(fc.integer({ min: 1, max: 600 })),
        waitSeconds: optionalOdd(fc.constantFrom(0, 0.001)),
        signal: optionalOdd(fc.constant(new AbortController().signal), 8),
        typo: oddValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

/** Which delivery an entry names: one of ours, one of another queue's, or something else. */
type Pick = { ours: number } | { foreign: true } | { junk: unknown };
const pickArb: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 9 }).map((ours) => ({ ours })) },
  { weight: 1, arbitrary: fc.constant({ foreign: true as const }) },
  { weight: 1, arbitrary: oddValue.map((junk) => ({ junk })) },
);

type Op =
  | { kind: 'ackBatch'; picks: Pick[] }
  | { kind: 'releaseBatch'; entries: unknown; picks: Pick[] }
  | { kind: 'ack'; pick: number }
  | { kind: 'release'; pick: number; options: unknown }
  | { kind: 'extendLease'; pick: number; seconds: unknown }
  | { kind: 'deadLetter'; pick: number; reason: string }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('ackBatch' as const), picks: fc.array(pickArb, { maxLength: 12 }) }),
  fc
    .record({
      picks: fc.array(pickArb, { maxLength: 12 }),
      delays: fc.array(delayArb, { maxLength: 12 }),
      holes: fc.array(fc.nat({ max: 11 }), { maxLength: 2 }),
      shape: fc.nat({ max: 19 }),
      extra: oddValue,
    })
    .map(({ picks, delays, holes, shape, extra }): Op => {
      // Entries resolved later, once the picks name real deliveries.
      return { kind: 'releaseBatch', picks, entries: { delays, holes, shape, extra } };
    }),
  fc.record({ kind: fc.constant('ack' as const), pick: fc.nat({ max: 9 }) }),
  fc.record({
    kind: fc.constant('release' as const),
    pick: fc.nat({ max: 9 }),
    options: fc.oneof(
      fc.constant(undefined),
      delayArb.map((delaySeconds) => (delaySeconds === undefined ? {} : { delaySeconds })),
    ),
  }),
  fc.record({
    kind: fc.constant('extendLease' as const),
    pick: fc.nat({ max: 9 }),
    seconds: fc.oneof(oddNumber, oddValue),
  }),
  fc.record({ kind: fc.constant('deadLetter' as const), pick: fc.nat({ max: 9 }), reason: oddString }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 120_000 }) }),
);

/**
 * Runs a call that may wait on the virtual clock (a long-poll receive on an empty queue), moving
 * the clock on until it settles: nobody else would, and it would wait for ever.
 */
async function withClock<T>(clock: VirtualClock, call: () => Promise<T>): Promise<T> {
  let settled = false;
  const promise = call().finally(() => {
    settled = true;
  });
  // Awaited below; until then a rejection must not count as unhandled.
  promise.catch(() => undefined);
  for (let step = 0; step < 60 && !settled; step++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!settled) await clock.advance(1_000);
  }
  return promise;
}

function resolve(pick: Pick, ours: readonly Delivery[], foreign: Delivery | undefined): unknown {
  if ('ours' in pick) return ours.length > 0 ? ours[pick.ours % ours.length] : undefined;
  if ('foreign' in pick) return foreign;
  return pick.junk;
}

function releaseEntries(
  op: Extract<Op, { kind: 'releaseBatch' }>,
  ours: readonly Delivery[],
  foreign?: Delivery,
) {
  const { delays, holes, shape, extra } = op.entries as {
    delays: unknown[];
    holes: number[];
    shape: number;
    extra: unknown;
  };
  if (shape === 0) return extra;
  const entries: unknown[] = op.picks.map((pick, i) => {
    const delivery = resolve(pick, ours, foreign);
    if (shape === 1 && i === 0) return extra;
    if (shape === 2 && i === 0) return { delivery, delay: 5 };
    const delaySeconds = delays[i];
    return delaySeconds === undefined ? { delivery } : { delivery, delaySeconds };
  });
  if (shape === 3) for (const hole of holes) if (hole < entries.length) delete entries[hole];
  return entries;
}

export const targets: FuzzTarget[] = [
  {
    name: 'core-receive-settle',
    minCases: 2_000,
    property: () =>
      fc.asyncProperty(
        fc.nat({ max: 6 }),
        receiveOptionsArb,
        fc.array(opArb, { maxLength: 6 }),
        fc.boolean(),
        async (count, receiveOptions, ops, bridged) => {
          const clock = new VirtualClock();
          const driver = new MemoryDriver({ clock, ...(bridged ? { nativeMaxDelaySeconds: 900 } : {}) });
          const other = new MemoryDriver({ clock, name: 'memory:other' });
          const queue = new Queue(driver, { clock });
          const otherQueue = new Queue(other, { clock });
          try {
            await queue.publishBatch(
              Array.from({ length: count }, (_, i) => ({
                envelope: { event_id: `evt_${i}:created:v1`, type: 'test.created', payload: { i } },
              })),
            );
            await otherQueue.publish({ envelope: { event_id: 'other:created:v1', type: 't', payload: 1 } });
            const [foreign] = await otherQueue.receive();
            const received = await outcomeOf(
              () => withClock(clock, () => queue.receive(receiveOptions as never)),
              'receive',
            );
            const ours = received.ok ? received.value : [];
            for (const op of ops) {
              switch (op.kind) {
                case 'ackBatch': {
                  const entries = op.picks.map((pick) => resolve(pick, ours, foreign));
                  const results = await outcomeOf(() => queue.ackBatch(entries as Delivery[]), 'ackBatch');
                  if (results.ok) check(results.value.length === entries.length, 'one ack outcome per entry');
                  break;
                }
                case 'releaseBatch': {
                  const entries = releaseEntries(op, ours, foreign);
                  const results = await outcomeOf(() => queue.releaseBatch(entries as never), 'releaseBatch');
                  if (results.ok) {
                    check(
                      Array.isArray(entries) && results.value.length === entries.length,
                      'one release outcome per entry',
                    );
                    check(
                      results.value.every((result) => result && typeof result.ok === 'boolean'),
                      'every release entry has an outcome',
                    );
                  }
                  break;
                }
                case 'ack':
                  if (ours.length > 0) await outcomeOf(() => ours[op.pick % ours.length]!.ack(), 'ack');
                  break;
                case 'release':
                  if (ours.length > 0) {
                    await outcomeOf(
                      () => ours[op.pick % ours.length]!.release(op.options as never),
                      'release',
                    );
                  }
                  break;
                case 'extendLease':
                  if (ours.length > 0) {
                    await outcomeOf(
                      () => ours[op.pick % ours.length]!.extendLease(op.seconds as never),
                      'extendLease',
                    );
                  }
                  break;
                case 'deadLetter':
                  if (ours.length > 0) {
                    await outcomeOf(() => ours[op.pick % ours.length]!.deadLetter(op.reason), 'deadLetter');
                  }
                  break;
                case 'advance':
                  await clock.advance(op.ms);
                  break;
              }
            }
            // Whatever happened, what is left can still be received and read.
            await clock.advance(8 * 86_400_000);
            const rest = await queue.receive({ maxMessages: 10 });
            check(Array.isArray(rest), 'a receive after the settles failed');
          } finally {
            await queue.close();
            await otherQueue.close();
          }
        },
      ),
  },
];
