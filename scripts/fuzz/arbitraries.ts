/**
 * Inputs a careless or hostile caller passes: wrong types, odd numbers, lone surrogates, control
 * characters, and values JSON cannot carry faithfully (cycles, shared graphs that expand, holes,
 * getters and proxies that answer differently on each read). Shared by the core fuzz targets.
 */
import fc from 'fast-check';

export const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uDE00\uD83D'] as const;

/** A string with a lone surrogate somewhere in it. */
export const loneSurrogateString = fc
  .tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 4 }))
  .map(([a, lone, b]) => a + lone + b);

/** Strings of every kind: printable, any code unit, control characters, lone surrogates, long. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: loneSurrogateString },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\t',
      '\n',
      '\u007f',
      '😀',
      'e\u0301',
      '%zz',
      '__proto__',
    ),
  },
  { weight: 1, arbitrary: fc.nat({ max: 2_000 }).map((n) => 'x'.repeat(n)) },
);

/** Numbers a caller gets wrong: negative, fractional, non-finite, huge, and -0. */
export const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -10, max: 100 }),
  fc.double({ noDefaultInfinity: false }),
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 31,
    Number.MAX_SAFE_INTEGER,
    1e300,
  ),
);

/** Anything at all where a value of one particular type belongs. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 3, arbitrary: oddNumber },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(undefined, null, true, false, [], {}, Symbol('s'), 10n, () => 1),
  },
  { weight: 1, arbitrary: fc.constant(new Date(0)) },
  { weight: 1, arbitrary: fc.constant(new Map()) },
);

/** A value that is undefined (absent) most of the time, else odd. */
export function optionalOdd<T>(good: fc.Arbitrary<T>, weight = 6): fc.Arbitrary<T | unknown> {
  return fc.oneof(
    { weight, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: good },
    { weight: 2, arbitrary: oddValue },
  );
}

// ---------------------------------------------------------------------------------------------
// Payloads

/** Leaves JSON has, plus leaves it does not (and that a payload must refuse). */
const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)),
  },
  { weight: 2, arbitrary: fc.double() },
  { weight: 2, arbitrary: loneSurrogateString },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      10n,
      Symbol('s'),
      () => 1,
      new Date(0),
      new Map(),
      new (class Money {
        amount = 1;
      })(),
      Object.create(null),
    ),
  },
);

/** Builds a value from the recipe, adding what a generator cannot express directly. */
type Twist =
  | 'none'
  | 'cycle'
  | 'forked-cycle'
  | 'shared'
  | 'doubling-dag'
  | 'hole'
  | 'leading-hole'
  | 'getter'
  | 'changing-proxy'
  | 'throwing-proxy'
  | 'revoked-proxy'
  | 'deep'
  | 'proto-key'
  | 'big-string'
  | 'huge-sparse';

/** How often each twist comes up; the ones that cost a full read of the size limit, rarely. */
const twists: Array<{ weight: number; arbitrary: fc.Arbitrary<Twist> }> = (
  [
    ['none', 6],
    ['cycle', 3],
    ['forked-cycle', 3],
    ['shared', 3],
    ['doubling-dag', 1],
    ['hole', 3],
    ['leading-hole', 2],
    ['getter', 3],
    ['changing-proxy', 2],
    ['throwing-proxy', 2],
    ['revoked-proxy', 2],
    ['deep', 2],
    ['proto-key', 2],
    ['big-string', 1],
    ['huge-sparse', 1],
  ] as Array<[Twist, number]>
).map(([kind, weight]) => ({ weight, arbitrary: fc.constant(kind) }));

const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: hostileLeaf },
    { weight: 1, arbitrary: fc.array(tie('tree'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(oddString, tie('tree'), { maxKeys: 4 }) },
  ),
}));

function twist(base: unknown, kind: Twist, n: number): unknown {
  switch (kind) {
    case 'none':
      return base;
    case 'cycle': {
      const loop: Record<string, unknown> = { base };
      loop.self = loop;
      return loop;
    }
    case 'forked-cycle': {
      const loop: Record<string, unknown> = { base };
      loop.a = loop;
      loop.b = [loop, { c: loop }];
      return loop;
    }
    case 'shared': {
      const part = { base };
      return { left: part, right: part, list: [part, part] };
    }
    case 'doubling-dag': {
      let node: unknown = [base];
      for (let i = 0; i < 20 + (n % 50); i++) node = [node, node];
      return node;
    }
    case 'hole': {
      const array: unknown[] = [base, 1, 2];
      delete array[1 + (n % 2)];
      return { items: array };
    }
    case 'leading-hole': {
      const array: unknown[] = [];
      array[1 + (n % 3)] = base;
      return array;
    }
    case 'getter': {
      let reads = 0;
      return {
        get value() {
          reads++;
          return reads % 2 === 1 ? base : { changed: reads };
        },
      };
    }
    case 'changing-proxy': {
      let reads = 0;
      return new Proxy({ a: 1, b: base } as Record<string, unknown>, {
        get: (target, key) => (key === 'a' ? ++reads : Reflect.get(target, key)),
        ownKeys: (target) => (reads++ % 2 === 0 ? Reflect.ownKeys(target) : ['a']),
      });
    }
    case 'throwing-proxy':
      return new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('trap refused');
          },
        },
      );
    case 'revoked-proxy': {
      const { proxy, revoke } = Proxy.revocable({ base }, {});
      revoke();
      return { nested: proxy };
    }
    case 'deep': {
      let node: unknown = base;
      for (let i = 0; i < 60 + (n % 20); i++) node = [node];
      return node;
    }
    case 'proto-key':
      return JSON.parse(`{"__proto__": {"polluted": true}, "x": ${JSON.stringify(n)}}`);
    case 'big-string':
      // Around the portable limit, in one- and three-byte characters.
      return { text: (n % 2 ? '€' : 'x').repeat(n % 2 ? 87_000 + (n % 500) : 261_900 + (n % 500)) };
    case 'huge-sparse':
      return new Array(1_000_000 + n);
  }
}

/** A payload: plain JSON most of the time, else something a payload must be refused for. */
export const payloadArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(tree, fc.oneof(...twists), fc.nat({ max: 1_000 }))
      .map(([base, kind, n]) => twist(base, kind, n)),
  },
);

// ---------------------------------------------------------------------------------------------
// Envelopes and publish inputs

export const eventIdArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[a-z0-9_]{1,12}:[a-z]{1,8}:v[0-9]$/) },
  { weight: 1, arbitrary: fc.constantFrom('dup_1:created:v1', 'dup_2:created:v1') },
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: fc.nat({ max: 600 }).map((n) => '€'.repeat(n)) },
  { weight: 1, arbitrary: oddValue },
);

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);

export const envelopeArb: fc.Arbitrary<unknown> = fc
  .record(
    {
      event_id: eventIdArb,
      type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('order.created', 'payment.settled') }, oddValue),
      payload: payloadArb,
      payload_ref: fc.record({ uri: fc.oneof(fc.webUrl(), oddString), sha256: fc.oneof(hex64, oddString) }),
      occurred_at: fc.oneof(fc.constant('2026-01-01T00:00:00Z'), oddValue),
      payload_sha256: fc.oneof(hex64, oddString),
      v: fc.oneof(fc.constant(1), oddValue),
      extra: oddValue,
    },
    { requiredKeys: ['event_id', 'type'] },
  )
  .chain((fields) =>
    // Mostly a payload and no payload_ref, which is what a valid envelope has.
    fc.nat({ max: 9 }).map((n) => {
      const envelope: Record<string, unknown> = { ...fields };
      if (n < 7) delete envelope.payload_ref;
      if (n < 8) delete envelope.extra;
      if (n < 6) {
        delete envelope.payload_sha256;
        delete envelope.v;
      }
      if (n < 5 && !('payload' in envelope)) envelope.payload = { n };
      return envelope;
    }),
  );

const attributeName = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('aws.trace', 'queueport.bridge', 'amazon.x', 'has space', '', 'x'.repeat(65)),
  },
  { weight: 1, arbitrary: oddString },
);

export const attributesArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.dictionary(
      attributeName,
      fc.oneof({ weight: 5, arbitrary: fc.string({ maxLength: 10 }) }, loneSurrogateString, oddValue),
      { maxKeys: 10 },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

export const delayArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 604_800 }) },
  { weight: 2, arbitrary: oddNumber },
  { weight: 1, arbitrary: oddValue },
);

export const groupIdArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9-]{1,10}$/) },
  { weight: 1, arbitrary: oddValue },
);

/** A publish input; sometimes with a typo'd field, a getter, or not an object at all. */
export const publishInputArb: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.record(
      { envelope: envelopeArb, attributes: attributesArb, delaySeconds: delayArb, groupId: groupIdArb },
      { requiredKeys: ['envelope'] },
    ),
    fc.nat({ max: 19 }),
  )
  .map(([input, n]) => {
    if (n === 0) return null;
    if (n === 1) return [input];
    if (n === 2) return { ...input, delay: 60 };
    if (n === 3) {
      // The envelope read through a getter that hands out a different one on the second read.
      let reads = 0;
      const { envelope, ...rest } = input;
      return {
        ...rest,
        get envelope() {
          return ++reads === 1 ? envelope : { event_id: 'swapped', type: 't', payload: 'swapped' };
        },
      };
    }
    for (const key of Object.keys(input) as Array<keyof typeof input>) {
      if (input[key] === undefined) delete input[key];
    }
    return input;
  });

/** A publish input that is valid, so the accepted path (and the round trip) is exercised too. */
export const validPublishInputArb: fc.Arbitrary<unknown> = fc.record(
  {
    envelope: fc.record({
      event_id: fc.oneof(
        fc.stringMatching(/^[a-z0-9_]{1,12}:[a-z]{1,8}:v[0-9]$/),
        fc.constantFrom('dup_1:created:v1', 'emoji_😀:v1', `long_${'€'.repeat(160)}`),
      ),
      type: fc.constantFrom('order.created', 'payment.settled'),
      payload: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant({ text: 'x'.repeat(200_000) })),
    }),
    attributes: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 10 }), {
      maxKeys: 3,
    }),
    delaySeconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 604_800 })),
  },
  { requiredKeys: ['envelope'] },
);

/**
 * A batch: valid entries half the time (with one odd entry now and then), hostile ones the other
 * half; sometimes with holes, sometimes not an array.
 */
export const batchArb: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.boolean(),
    fc.array(validPublishInputArb, { maxLength: 4 }),
    fc.array(publishInputArb, { maxLength: 6 }),
    fc.array(fc.nat({ max: 5 }), { maxLength: 2 }),
    fc.nat({ max: 39 }),
  )
  .map(([mostlyValid, valid, hostile, holes, n]) => {
    if (n === 0) return hostile[0] ?? 'not an array';
    const inputs = mostlyValid ? (n < 8 && hostile[0] ? [...valid, hostile[0]] : valid) : hostile;
    if (n > 35) for (const hole of holes) if (hole < inputs.length) delete inputs[hole];
    return inputs;
  });
