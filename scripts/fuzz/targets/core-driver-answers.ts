/**
 * A driver that answers the Queue like a hostile or broken provider would: more messages than
 * asked for, repeated receipts, fields of the wrong type or size, attribute objects with
 * `__proto__` keys, getters that throw, answers that are not lists, calls that throw, and calls
 * that never answer at all. Every receive and settle ends in success or a typed QueueError
 * within the call deadline (no hang), and what a receive hands out is never more than it asked
 * for and always well-formed.
 */
import { encodeEnvelope, prepareEnvelope, Queue, type QueueError } from '@queueport/core';
import type {
  Capabilities,
  DeadLetterEntry,
  Driver,
  DriverMessage,
  ExtendEntry,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  ReleaseEntry,
  SettleOutcome,
} from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import fc from 'fast-check';
import { oddNumber, oddString, oddValue } from '../arbitraries';
import { check, outcomeOf } from '../context';
import type { FuzzTarget } from './fuzz-target';

const CALL_TIMEOUT_MS = 1_000;

const bodies = Array.from({ length: 4 }, (_, i) =>
  encodeEnvelope(prepareEnvelope({ event_id: `evt_hostile_${i}`, type: 'test.hostile', payload: { i } })),
);

function throwingGetter(key: string): Record<string, unknown> {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw new Error('a getter of the driver’s answer threw');
    },
  });
}

/** One field of a message, replaced by something a provider should never have sent. */
const fieldTwistArb: fc.Arbitrary<[string, unknown]> = fc.oneof(
  fc.tuple(fc.constant('receipt'), fc.oneof(oddValue, fc.constant('r'.repeat(8_193)), fc.constant(''))),
  fc.tuple(fc.constant('messageId'), fc.oneof(oddValue, fc.constant(''))),
  fc.tuple(fc.constant('receiveCount'), fc.oneof(oddNumber, oddValue)),
  fc.tuple(fc.constant('body'), fc.oneof(oddString, oddValue, fc.constant('{"v":1}'))),
  fc.tuple(
    fc.constant('attributes'),
    fc.oneof(
      oddValue,
      fc.constant(JSON.parse('{"__proto__":"x"}')),
      fc.constant({ constructor: 'x' }),
      fc.constant({ x: 5 }),
      fc.constant(throwingGetter('x')),
      fc.constant(Object.create({ inherited: 'x' })),
      fc.constant(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`a${i}`, 'v']))),
      fc.dictionary(oddString, oddValue, { maxKeys: 4 }),
    ),
  ),
  fc.tuple(fc.constant('groupId'), oddValue),
  fc.tuple(fc.constant('parsedBody'), oddValue),
);

type EntryRecipe =
  | { kind: 'good'; body: number; count: number }
  | { kind: 'twisted'; body: number; twists: Array<[string, unknown]> }
  | { kind: 'repeat'; of: number }
  | { kind: 'junk'; value: unknown }
  | { kind: 'throwing-proxy' };

const entryArb: fc.Arbitrary<EntryRecipe> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('good' as const),
      body: fc.nat({ max: 3 }),
      count: fc.integer({ min: 1, max: 30 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('twisted' as const),
      body: fc.nat({ max: 3 }),
      twists: fc.array(fieldTwistArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), of: fc.nat({ max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('junk' as const), value: oddValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throwing-proxy' as const }) },
);

/** How a driver call answers. */
type Behaviour =
  | { kind: 'answer' }
  | { kind: 'hang' }
  | { kind: 'late'; ms: number }
  | { kind: 'throw'; value: unknown }
  | { kind: 'miscount' }
  | { kind: 'junk'; value: unknown }
  | { kind: 'junk-entries'; value: unknown };

const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'answer' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'hang' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('late' as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('throw' as const), value: oddValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'miscount' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('junk' as const), value: oddValue }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('junk-entries' as const),
      value: fc.oneof(
        oddValue,
        fc.constantFrom<unknown>(
          { ok: 'yes' },
          { ok: 1 },
          { ok: true, messageId: 5 },
          { ok: true, messageId: '' },
          { ok: true, messageId: 'm', duplicate: 'no' },
          { ok: false },
          { ok: false, error: 'plain string' },
        ),
      ),
    }),
  },
);

interface Scenario {
  answers: Array<{
    shape: 'list' | 'not-a-list' | 'behaviour';
    entries: EntryRecipe[];
    behaviour: Behaviour;
  }>;
  settle: Behaviour[];
  publish: Behaviour[];
  maxMessages: number;
  waitSeconds: number;
  deadLetterMove: boolean;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  answers: fc.array(
    fc.record({
      shape: fc.constantFrom('list', 'list', 'list', 'not-a-list', 'behaviour'),
      entries: fc.array(entryArb, { maxLength: 24 }),
      behaviour: behaviourArb,
    }),
    { minLength: 1, maxLength: 3 },
  ),
  settle: fc.array(behaviourArb, { minLength: 1, maxLength: 6 }),
  publish: fc.array(behaviourArb, { minLength: 1, maxLength: 3 }),
  maxMessages: fc.integer({ min: 1, max: 10 }),
  waitSeconds: fc.constantFrom(0, 1, 30),
  deadLetterMove: fc.boolean(),
});

function buildEntry(recipe: EntryRecipe, index: number, previous: readonly unknown[]): unknown {
  switch (recipe.kind) {
    case 'good':
      return {
        receipt: `r-${index}`,
        messageId: `m-${index}`,
        body: bodies[recipe.body]!,
        attributes: { n: String(index) },
        receiveCount: recipe.count,
      };
    case 'twisted': {
      const entry: Record<string, unknown> = {
        receipt: `r-${index}`,
        messageId: `m-${index}`,
        body: bodies[recipe.body]!,
        attributes: {},
        receiveCount: 1,
      };
      for (const [field, value] of recipe.twists) entry[field] = value;
      return entry;
    }
    case 'repeat':
      return previous.length > 0 ? previous[recipe.of % previous.length] : undefined;
    case 'junk':
      return recipe.value;
    case 'throwing-proxy':
      return new Proxy(
        {},
        {
          get() {
            throw new Error('a Proxy in the driver’s answer threw');
          },
        },
      );
  }
}

const never = <T>() => new Promise<T>(() => {});

/** Carries out a behaviour: `answer` is what a well-behaved call would have returned. */
function behave<T>(behaviour: Behaviour, clock: VirtualClock, answer: () => T, count: number): Promise<T> {
  switch (behaviour.kind) {
    case 'answer':
      return Promise.resolve(answer());
    case 'hang':
      return never();
    case 'late':
      return clock.sleep(behaviour.ms).then(answer);
    case 'throw':
      return Promise.reject(behaviour.value);
    case 'miscount':
      return Promise.resolve(Array.from({ length: count + 1 }, () => ({ ok: true })) as T);
    case 'junk':
      return Promise.resolve(behaviour.value as T);
    case 'junk-entries':
      return Promise.resolve(Array.from({ length: count }, () => behaviour.value) as T);
  }
}

class HostileDriver implements Driver {
  readonly name = 'hostile';
  readonly capabilities: Capabilities;
  readonly handedOut: unknown[][] = [];
  #receives = 0;
  #settles = 0;
  #publishes = 0;
  readonly extendLease: (entries: readonly ExtendEntry[]) => Promise<SettleOutcome[]>;
  readonly deadLetter?: (entries: readonly DeadLetterEntry[]) => Promise<SettleOutcome[]>;

  constructor(
    readonly scenario: Scenario,
    readonly clock: VirtualClock,
  ) {
    this.capabilities = {
      maxBodyBytes: 262_144,
      delay: { maxSeconds: 604_800, nativeMaxSeconds: 604_800, fractional: false },
      dedupe: { kind: 'none' },
      ordering: 'none',
      leaseExtension: true,
      leaseSeconds: { min: 1, max: 43_200 },
      longPollMaxSeconds: 20,
      receiveCount: true,
      retentionSeconds: 86_400,
      batch: { publish: 10, receive: 10, settle: 10 },
      staleReceipt: 'rejected',
      deadLetter: { move: scenario.deadLetterMove, redriveAfterReceives: null },
    };
    this.extendLease = (entries) => this.#settle(entries.length);
    if (scenario.deadLetterMove) this.deadLetter = (entries) => this.#settle(entries.length);
  }

  publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    const behaviour = this.scenario.publish[this.#publishes++ % this.scenario.publish.length]!;
    return behave(
      behaviour,
      this.clock,
      () => messages.map((_, i): PublishOutcome => ({ ok: true, messageId: `p-${i}` })),
      messages.length,
    );
  }

  receive(_request: ReceiveRequest): Promise<DriverMessage[]> {
    const answer = this.scenario.answers[this.#receives++ % this.scenario.answers.length]!;
    if (answer.shape === 'behaviour') return behave(answer.behaviour, this.clock, () => [], 0);
    if (answer.shape === 'not-a-list') return Promise.resolve({ messages: answer.entries } as never);
    const built: unknown[] = [];
    for (const [index, recipe] of answer.entries.entries()) built.push(buildEntry(recipe, index, built));
    this.handedOut.push(built);
    return Promise.resolve(built as DriverMessage[]);
  }

  ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(receipts.length);
  }

  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.#settle(entries.length);
  }

  async close(): Promise<void> {}

  #settle(count: number): Promise<SettleOutcome[]> {
    const behaviour = this.scenario.settle[this.#settles++ % this.scenario.settle.length]!;
    return behave(
      behaviour,
      this.clock,
      () => Array.from({ length: count }, (): SettleOutcome => ({ ok: true })),
      count,
    );
  }
}

/**
 * Moves the virtual clock on until the call settles, far past every deadline it may wait on; a
 * call still pending then is a hang.
 */
async function bounded<T>(clock: VirtualClock, label: string, call: () => Promise<T>) {
  let settled = false;
  const outcome = outcomeOf(call, label).finally(() => {
    settled = true;
  });
  outcome.catch(() => undefined);
  for (let step = 0; step < 100 && !settled; step++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!settled) await clock.advance(5 * CALL_TIMEOUT_MS);
  }
  check(settled, `${label} did not settle: a hang past the call deadline`);
  return outcome;
}

function wellFormed(delivery: {
  receipt: unknown;
  messageId: unknown;
  receiveCount: unknown;
  attributes: unknown;
}): boolean {
  const attributes = delivery.attributes as Record<string, unknown>;
  return (
    typeof delivery.receipt === 'string' &&
    delivery.receipt.length > 0 &&
    typeof delivery.messageId === 'string' &&
    delivery.messageId.length > 0 &&
    Number.isSafeInteger(delivery.receiveCount) &&
    (delivery.receiveCount as number) >= 1 &&
    attributes !== null &&
    typeof attributes === 'object' &&
    Object.getPrototypeOf(attributes) === Object.prototype &&
    Object.values(attributes).every((value) => typeof value === 'string')
  );
}

export const targets: FuzzTarget[] = [
  {
    name: 'core-driver-answers',
    minCases: 1_500,
    property: () =>
      fc.asyncProperty(
        scenarioArb,
        fc.array(fc.constantFrom('ack', 'release', 'extend', 'dead'), { maxLength: 4 }),
        async (scenario, settles) => {
          const clock = new VirtualClock();
          const driver = new HostileDriver(scenario, clock);
          const problems: QueueError[] = [];
          const queue = new Queue(driver, {
            clock,
            callTimeoutMs: CALL_TIMEOUT_MS,
            retry: { maxAttempts: 2, baseMs: 0, maxMs: 0 },
            logger: { warn: () => {} },
          });
          queue.on('invalid-message', ({ error }) => problems.push(error));
          queue.on('driver-fault', ({ error }) => problems.push(error));
          try {
            await bounded(clock, 'publish', () =>
              queue.publish({ envelope: { event_id: 'evt_out', type: 'test.out', payload: {} } }),
            );
            const received = await bounded(clock, 'receive', () =>
              queue.receive({ maxMessages: scenario.maxMessages, waitSeconds: scenario.waitSeconds }),
            );
            if (!received.ok) return;
            const deliveries = received.value;
            check(deliveries.length <= scenario.maxMessages, 'a receive handed out more than it asked for');
            check(deliveries.every(wellFormed), 'a malformed driver message reached a delivery');
            check(
              new Set(deliveries.map((d) => d.receipt)).size === deliveries.length,
              'one receipt handed out twice',
            );
            check(
              problems.every((problem) => problem.name === 'QueueError'),
              'a problem event carried an untyped error',
            );
            for (const [index, how] of settles.entries()) {
              const delivery = deliveries[index % Math.max(1, deliveries.length)];
              if (!delivery) break;
              await bounded(clock, how, () =>
                how === 'ack'
                  ? delivery.ack()
                  : how === 'release'
                    ? delivery.release()
                    : how === 'extend'
                      ? delivery.extendLease(30)
                      : delivery.deadLetter('fuzz'),
              );
            }
          } finally {
            await queue.close();
          }
        },
      ),
  },
];
