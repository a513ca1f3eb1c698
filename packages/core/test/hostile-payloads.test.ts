import {
  canonicalJson,
  decodeEnvelope,
  type EnvelopeInput,
  encodeEnvelope,
  type JsonValue,
  MAX_BODY_BYTES,
  type PublishInput,
  payloadDigest,
  prepareEnvelope,
  Queue,
} from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { EXCEEDED, ReadBudget } from './helpers/hostile-scenarios';
import { runIsolated } from './helpers/isolated';
import { rejection, thrown } from './helpers/queue-errors';
import { RecordingDriver } from './helpers/recording-driver';

const SCENARIOS = new URL('./helpers/hostile-scenarios.ts', import.meta.url);
const HANG_GUARD_MS = 30_000;

const HOLE = Symbol('hole');

/** An array with holes where HOLE stands: `holey(1, HOLE, 2)` is `[1, , 2]`. */
function holey(...items: unknown[]): unknown[] {
  const array: unknown[] = [];
  array.length = items.length;
  items.forEach((item, index) => {
    if (item !== HOLE) array[index] = item;
  });
  return array;
}

function envelope(payload: unknown, extra: Partial<EnvelopeInput> = {}): EnvelopeInput {
  return {
    event_id: 'hostile_1',
    type: 'test.hostile',
    payload: payload as JsonValue,
    ...extra,
  } as EnvelopeInput;
}

/** What a consumer gets for everything the driver was handed: deliveries and invalid bodies. */
async function roundTrip(driver: RecordingDriver) {
  const invalid: string[] = [];
  const reader = new Queue(driver, {
    hooks: { onInvalidMessage: ({ error }) => invalid.push(error.message) },
  });
  driver.inbox.push(
    ...driver.published.map((message, n) => ({
      receipt: `r-${n}`,
      messageId: `m-${n}`,
      body: message.body,
      attributes: message.attributes,
      receiveCount: 1,
    })),
  );
  const deliveries = await reader.receive({ maxMessages: 10 });
  return { deliveries, invalid };
}

describe('cycles and shared graphs are refused quickly, never hang the event loop', () => {
  it.each([
    ['publish of a cycle with two ways back', 'publishForkedCycle', 'INVALID_ENVELOPE'],
    ['canonicalJson of that cycle (was a stack overflow)', 'canonicalForkedCycle', 'INVALID_ENVELOPE'],
    ['payloadDigest of that cycle', 'digestForkedCycle', 'INVALID_ENVELOPE'],
    ['publish of a DAG that doubles 60 times when serialised', 'publishDoublingDag', 'PAYLOAD_TOO_LARGE'],
    ['prepareEnvelope of that DAG', 'prepareDoublingDag', 'PAYLOAD_TOO_LARGE'],
    ['payloadDigest of that DAG', 'digestDoublingDag', 'PAYLOAD_TOO_LARGE'],
  ])('%s', async (_name, scenario, code) => {
    // The work is bounded by the scenario's read budget, not timed: the timeout only keeps a
    // walk that never ends from hanging the run, generous for a loaded machine.
    const outcome = await runIsolated(SCENARIOS, scenario, HANG_GUARD_MS);
    expect(outcome).toMatchObject({ status: 'returned', value: code });
  });

  it('the read budget catches a walk that is not linear (JSON.stringify of that DAG)', async () => {
    const outcome = await runIsolated(SCENARIOS, 'stringifyDoublingDag', HANG_GUARD_MS);
    expect(outcome).toMatchObject({ status: 'returned', value: EXCEEDED });
  });

  it('names the cycle, and a value shared without a cycle is still accepted', async () => {
    // One way back only: before, this was reported as nesting past 64 levels.
    const loop: Record<string, unknown> = { id: 1 };
    loop.self = loop;
    const error = thrown(() => prepareEnvelope(envelope(loop)));
    expect(error.code).toBe('INVALID_ENVELOPE');
    expect(error.details.problems).toEqual([
      'payload.self refers back to a value that contains it (a cycle)',
    ]);
    const shared = { amount: 1 };
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope: envelope({ a: shared, b: shared }) });
    expect(JSON.parse(driver.published[0]!.body).payload).toEqual({ a: { amount: 1 }, b: { amount: 1 } });
  });

  it('stops reading at the size limit: the running size, not the whole value, decides', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver, { limits: { maxBodyBytes: 1_000 } });
    let reads = 0;
    const big = { items: Array.from({ length: 100 }, (_, i) => ({ i })) };
    const counted = new Proxy(big, {
      get: (target, key) => {
        reads++;
        return Reflect.get(target, key);
      },
    });
    const error = await rejection(
      queue.publish({ envelope: envelope({ text: 'x'.repeat(2_000), counted }) }),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toMatchObject({ maxBodyBytes: 1_000, atLeast: true, event_id: 'hostile_1' });
    expect(error.details.sizeBytes as number).toBeGreaterThan(1_000);
    expect(error.details.sizeBytes as number).toBeLessThan(2_100);
    // The 2,000-byte string already passed the limit: nothing after it was read.
    expect(reads).toBe(0);
    expect(driver.publishCalls).toEqual([]);
  });

  it('a huge sparse array is PAYLOAD_TOO_LARGE at once: its commas alone pass the limit', async () => {
    const driver = new RecordingDriver();
    // A reader that walked its billion slots would spend the budget (and be INVALID_ENVELOPE).
    const budget = new ReadBudget(100);
    const error = await rejection(
      new Queue(driver).publish({ envelope: envelope(budget.watch(new Array(1_000_000_000))) }),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(budget.exceeded).toBe(false);
    expect(driver.publishCalls).toEqual([]);
  });
});

describe('sparse arrays', () => {
  it.each([
    ['a leading hole, which went out as "[,1]", a body no consumer can parse', holey(HOLE, 1)],
    ['a hole in the middle, which went out silently shortened', holey(1, HOLE, 2)],
    ['a hole deep inside', { items: [{ tags: holey('a', HOLE, 'c') }] }],
    ['an array made with a length', new Array(3)],
  ])('refuses %s with INVALID_ENVELOPE and sends nothing', async (_name, payload) => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).publish({ envelope: envelope(payload) }));
    expect(error.code).toBe('INVALID_ENVELOPE');
    expect(String(error.details.problems)).toMatch(/is a hole in a sparse array/);
    expect(driver.publishCalls).toEqual([]);
  });

  it('refuses a hole in a publishBatch array before anything is sent', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);
    const entry = (n: number): PublishInput => ({ envelope: envelope({ n }, { event_id: `evt_${n}` }) });
    const batch = holey(entry(1), HOLE, entry(3)) as PublishInput[];
    const error = await rejection(queue.publishBatch(batch));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe('inputs[1]');
    expect(driver.publishCalls).toEqual([]);
  });

  it('refuses a hole in a releaseBatch array before anything is settled', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);
    await queue.publish({ envelope: envelope(1) });
    const { deliveries } = await roundTrip(driver);
    const reader = deliveries[0]!;
    const entries = holey({ delivery: reader }, HOLE, { delivery: reader }) as Array<{
      delivery: typeof reader;
    }>;
    const error = await rejection(queue.releaseBatch(entries));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe('entries[1]');
    expect(driver.settleCalls).toEqual([]);
  });
});

describe('values that change between reads', () => {
  it('a payload getter answering differently each time: what was checked and hashed is what is sent', async () => {
    let reads = 0;
    const input = {
      event_id: 'getter_1',
      type: 'test.getter',
      get payload() {
        reads++;
        return { read: reads };
      },
    };
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope: input as unknown as EnvelopeInput });
    expect(reads).toBe(1);
    const { deliveries, invalid } = await roundTrip(driver);
    expect(invalid).toEqual([]);
    expect(deliveries.map((d) => d.envelope.payload)).toEqual([{ read: 1 }]);
  });

  it('a proxy whose values change on every read is read once', async () => {
    let reads = 0;
    const payload = new Proxy({ amount: 0 } as Record<string, unknown>, {
      get: (target, key) => (key === 'amount' ? ++reads : Reflect.get(target, key)),
    });
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope: envelope(payload) });
    const { deliveries, invalid } = await roundTrip(driver);
    expect(invalid).toEqual([]);
    expect(deliveries[0]!.envelope.payload).toEqual({ amount: 1 });
  });

  it('attributes that change between reads cannot smuggle a reserved attribute past the check', async () => {
    let listings = 0;
    const attributes = new Proxy({} as Record<string, string>, {
      ownKeys: () => (++listings === 1 ? ['tenant'] : ['queueport.bridge']),
      getOwnPropertyDescriptor: () => ({ value: '1:0:0:0', enumerable: true, configurable: true }),
      get: () => '1:0:0:0',
    });
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope: envelope(1), attributes });
    expect(driver.published[0]!.attributes).toEqual({ tenant: '1:0:0:0' });
  });

  it('a getter that throws is INVALID_ENVELOPE naming where, with the error as cause', () => {
    const payload = {
      get amount(): number {
        throw new Error('not loaded');
      },
    };
    const error = thrown(() => prepareEnvelope(envelope(payload)));
    expect(error.code).toBe('INVALID_ENVELOPE');
    expect(error.message).toContain('payload.amount could not be read (not loaded)');
    expect((error.cause as Error).message).toBe('not loaded');
  });

  it('a revoked proxy is INVALID_ENVELOPE, not a TypeError', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(thrown(() => prepareEnvelope(envelope({ nested: proxy }))).code).toBe('INVALID_ENVELOPE');
  });
});

describe('lone surrogates', () => {
  it.each([
    ['an event_id', { event_id: 'payment_\uD800' }, /event_id has a lone surrogate/],
    ['a type', { type: 'payment.\uDFFF' }, /type has a lone surrogate/],
    ['a payload string', { payload: { note: 'a\uD83D' } }, /payload\.note has a lone surrogate/],
    ['a payload key', { payload: { 'k\uDC00': 1 } }, /is a key with a lone surrogate/],
    ['a string in an array', { payload: ['ok', '\uDBFF'] }, /payload\[1\] has a lone surrogate/],
  ])('in %s: INVALID_ENVELOPE', async (_name, override, problem) => {
    const driver = new RecordingDriver();
    const error = await rejection(
      new Queue(driver).publish({ envelope: envelope({ ok: true }, override as never) }),
    );
    expect(error.code).toBe('INVALID_ENVELOPE');
    expect(String(error.details.problems)).toMatch(problem);
    expect(driver.publishCalls).toEqual([]);
  });

  it('a well-formed pair is fine', async () => {
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope: envelope({ note: '😀' }, { event_id: 'emoji_😀' }) });
    expect(driver.published[0]!.eventId).toBe('emoji_😀');
  });

  it('in an attribute value: INVALID_ARGUMENT', async () => {
    const driver = new RecordingDriver();
    const error = await rejection(
      new Queue(driver).publish({ envelope: envelope(1), attributes: { tenant: 'acme\uD800' } }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe('attributes');
  });

  it('decoding a body whose escapes spell a lone surrogate is INVALID_ENVELOPE', () => {
    const good = prepareEnvelope(envelope('x'));
    const body = JSON.stringify({ ...good, event_id: 'evt_\\uD800' }).replace('\\\\uD800', '\\uD800');
    expect(JSON.parse(body).event_id).toBe('evt_\uD800');
    expect(thrown(() => decodeEnvelope(body)).code).toBe('INVALID_ENVELOPE');
  });
});

describe('the standalone helpers', () => {
  it('canonicalJson and payloadDigest refuse what canonical JSON cannot carry, with a typed error', () => {
    expect(thrown(() => canonicalJson(holey(HOLE, 1) as JsonValue)).code).toBe('INVALID_ENVELOPE');
    expect(thrown(() => payloadDigest({ a: 'x\uD800' })).code).toBe('INVALID_ENVELOPE');
    expect(thrown(() => payloadDigest({ when: new Date() } as never)).code).toBe('INVALID_ENVELOPE');
  });

  it('an envelope decode accepts (a payload nested 64 levels) encodes again', () => {
    let payload: JsonValue = 1;
    for (let i = 0; i < 64; i++) payload = [payload];
    const decoded = decodeEnvelope(JSON.stringify(prepareEnvelope(envelope(payload))));
    expect(decodeEnvelope(encodeEnvelope(decoded))).toEqual(decoded);
    payload = [payload];
    expect(thrown(() => prepareEnvelope(envelope(payload))).details.problems).toEqual([
      `payload${'[0]'.repeat(65)} nests deeper than 64 levels`,
    ]);
  });

  it('prepareEnvelope takes the limit it is given', () => {
    const payload = 'x'.repeat(2_000);
    expect(prepareEnvelope(envelope(payload)).payload).toBe(payload);
    const error = thrown(() => prepareEnvelope(envelope(payload), undefined, { maxBytes: 1_000 }));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details.maxBodyBytes).toBe(1_000);
  });

  it('a payload at the portable limit is read once, each property a single read', () => {
    const budget = new ReadBudget(Number.POSITIVE_INFINITY);
    const payload = Array.from({ length: 9_000 }, (_, i) => budget.watch({ i, tag: 'abcdef' }));
    const prepared = prepareEnvelope(envelope(payload), undefined, { maxBytes: MAX_BODY_BYTES });
    expect(prepared.payload).toHaveLength(9_000);
    // Per element: its keys, and each key's descriptor and value; a second pass would double it.
    expect(budget.reads).toBeLessThanOrEqual(9_000 * 5);
  });
});
