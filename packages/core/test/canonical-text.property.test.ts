import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  type Envelope,
  encodeEnvelope,
  type JsonValue,
  payloadDigest,
  prepareEnvelope,
} from '../src/envelope';
import { isCanonicalJsonText, scanCanonicalEnvelope } from '../src/envelope/canonical-text';
import { decodeEnvelope, decodeEnvelopeFully } from '../src/envelope/codec';
import { MAX_JSON_DEPTH } from '../src/envelope/read-json';
import { QueueError } from '../src/errors';

/** What the scanner must agree with: the text is what canonicalJson writes for what it parses to. */
function isCanonicalByReference(text: string): boolean {
  try {
    return canonicalJson(JSON.parse(text) as JsonValue) === text;
  } catch {
    return false;
  }
}

// Numbers whose canonical form is easy to get wrong: -0 (written "0"), the points where
// ECMAScript switches to an exponent (1e21, 1e-7), integers past 2^53, 15 and 16 digits.
const awkwardNumber = fc.constantFrom(
  -0,
  0,
  1e21,
  1e20,
  123456789012345680000,
  1e-7,
  5e-7,
  1e-6,
  0.000001,
  0.0000015,
  123456789012345,
  1234567890123456,
  999999999999999.9,
  0.1,
  0.3,
  1 / 3,
  -1.5,
  2 ** 53,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  1.7976931348623157e308,
  2.2250738585072014e-308,
);
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n / 100),
  awkwardNumber,
);
// Characters JSON.stringify escapes (short forms and \u00XX), ones it does not (DEL, U+2028, "/"),
// a surrogate pair, and what looks like an escape once written.
const awkwardChar = fc.constantFrom(
  '"',
  '\\',
  '/',
  '\b',
  '\f',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u0001',
  '\u000b',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '\ud83d\ude00',
  '\uffff',
  'é',
  'u',
  'a',
  'A',
);
const string = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: awkwardChar, maxLength: 8 }),
  fc.string({ unit: fc.oneof(awkwardChar, fc.string({ minLength: 1, maxLength: 1 })), maxLength: 8 }),
);
// Keys V8 enumerates out of insertion order, __proto__, and keys that sort differently by code
// point than by UTF-16 code unit.
const key = fc.oneof(
  string,
  fc.constantFrom('__proto__', '0', '1', '10', '9', 'payload', 'toJSON', '', '\u{1F600}', '\uFF5E', 'é', 'e'),
);
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    number,
    string,
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
})).value;
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

type Pick = (n: number) => number;

/**
 * Writes `value` as JSON text, each token canonical unless a roll under `noise` percent says
 * otherwise: whitespace, keys out of order or repeated, other spellings of a number or a
 * character (some of them not JSON at all). With noise 0 it writes canonicalJson's text.
 */
function write(value: unknown, pick: Pick, noise: number): string {
  const odd = () => pick(100) < noise;
  const ws = () => (odd() ? [' ', '\n', '\t', '\r', '  '][pick(5)]! : '');
  let text: string;
  if (value === null || typeof value === 'boolean') text = String(value);
  else if (typeof value === 'number') text = spellNumber(value, pick, odd);
  else if (typeof value === 'string') text = spellString(value, pick, odd);
  else if (Array.isArray(value)) {
    text = `[${value.map((item) => write(item, pick, noise)).join(',') || ws()}]`;
  } else {
    const object = value as Record<string, unknown>;
    let keys = Object.keys(object).sort();
    if (odd()) keys = pick(2) === 0 ? Object.keys(object) : keys.reverse();
    const members = keys.map((k) => `${spellString(k, pick, odd)}${ws()}:${write(object[k], pick, noise)}`);
    if (members.length > 0 && odd()) {
      // A repeated key: JSON.parse keeps the last, canonical text never has one.
      const again = keys[pick(keys.length)]!;
      const copy = `${spellString(again, pick, odd)}:${write(pick(2) === 0 ? object[again] : 0, pick, noise)}`;
      members.splice(pick(members.length + 1), 0, copy);
    }
    text = `{${members.join(',')}}`;
  }
  return ws() + text + ws();
}

function spellNumber(n: number, pick: Pick, odd: () => boolean): string {
  const canonical = JSON.stringify(n);
  if (!odd()) return canonical;
  const spellings = [
    Object.is(n, -0) ? '-0' : `-${canonical}`,
    n.toExponential(),
    n.toExponential().replace('e', 'E'),
    n.toExponential().replace('e+', 'e'),
    canonical.replace('e+', 'e'),
    canonical.replace('e', 'E'),
    canonical.includes('.') || canonical.includes('e') ? `${canonical}0` : `${canonical}.0`,
    `0${canonical}`,
    `+${canonical}`,
    Math.abs(n) < 1e21 ? n.toFixed(pick(4)) : BigInt(n).toString(),
    n.toPrecision(1 + pick(21)),
    pick(2) === 0 ? '1e400' : '-1e999',
  ];
  return spellings[pick(spellings.length)]!;
}

function spellString(s: string, pick: Pick, odd: () => boolean): string {
  let text = '"';
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && /[\udc00-\udfff]/.test(s[i + 1] ?? '');
    const unit = pair ? s.slice(i, i + 2) : s[i]!;
    if (pair) i++;
    if (!odd()) {
      text += JSON.stringify(unit).slice(1, -1);
      continue;
    }
    let escaped = '';
    for (let j = 0; j < unit.length; j++) escaped += `\\u${unit.charCodeAt(j).toString(16).padStart(4, '0')}`;
    const spellings = [
      escaped,
      escaped.toUpperCase().replaceAll('\\U', '\\u'),
      unit === '/' ? '\\/' : `\\${unit}`,
      unit,
      pick(2) === 0 ? '\\ud800' : '\udc00',
    ];
    text += spellings[pick(spellings.length)]!;
  }
  return `${text}"`;
}

const noise = fc.constantFrom(0, 0, 1, 3, 10, 40);
const picker =
  (gen: fc.GeneratorValue): Pick =>
  (max) =>
    gen(fc.nat, { max: Math.max(0, max - 1) });

/** A character replaced, inserted or removed somewhere in `text`. */
const mutate = (text: fc.Arbitrary<string>) =>
  fc
    .tuple(
      text,
      fc.nat(),
      fc.constantFrom('replace', 'insert', 'delete'),
      fc.oneof(awkwardChar, fc.constantFrom(...'{}[],:0123456789.eE+-tfn ')),
    )
    .map(([t, at, how, c]) => {
      const i = t.length === 0 ? 0 : at % t.length;
      if (how === 'delete') return t.slice(0, i) + t.slice(i + 1);
      return t.slice(0, i) + c + t.slice(how === 'insert' ? i : i + 1);
    });

const nest = (depth: number, inner: string, open = '[', close = ']') =>
  open.repeat(depth) + inner + close.repeat(depth);

describe('isCanonicalJsonText', () => {
  it('accepts the canonical text of every value JsonReader accepts', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        expect(isCanonicalJsonText(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('is true exactly for canonical text, among texts written every which way', () => {
    let canonical = 0;
    let other = 0;
    fc.assert(
      fc.property(json, noise, fc.gen(), (value, n, gen) => {
        const text = write(value, picker(gen), n);
        const expected = isCanonicalByReference(text);
        expect([text, isCanonicalJsonText(text)]).toEqual([text, expected]);
        if (expected) canonical++;
        else other++;
      }),
      { numRuns: 5000 },
    );
    // Both answers must come up often, or the comparison proves little.
    expect(canonical).toBeGreaterThan(500);
    expect(other).toBeGreaterThan(500);
  });

  it('is true exactly for canonical text, among canonical texts with a character changed', () => {
    fc.assert(
      fc.property(mutate(json.map((value) => canonicalJson(value))), (text) => {
        expect([text, isCanonicalJsonText(text)]).toEqual([text, isCanonicalByReference(text)]);
      }),
      { numRuns: 5000 },
    );
  });

  it('is true exactly for canonical text, among arbitrary strings and JSON.stringify output', () => {
    const texts = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.json(),
      json.map((value) => JSON.stringify(value)),
      json.map((value) => JSON.stringify(value, null, 1)),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect([text, isCanonicalJsonText(text)]).toEqual([text, isCanonicalByReference(text)]);
      }),
      { numRuns: 5000 },
    );
  });

  it('is true exactly for a number token that String(Number(token)) gives back', () => {
    const spelled = fc
      .tuple(number, fc.nat(20), fc.nat(20))
      .chain(([n, digits, precision]) =>
        fc.constantFrom(
          String(n),
          n.toExponential(digits),
          n.toPrecision(precision + 1),
          Math.abs(n) < 1e21 ? n.toFixed(digits) : String(n),
          `-${String(n)}`,
        ),
      );
    const tokens = fc.oneof(
      spelled,
      fc.string({ unit: fc.constantFrom(...'0123456789.eE+-'), minLength: 1, maxLength: 24 }),
      // Around the decimal shortcut's bounds: 15 and 16 significant digits, five and six zeros.
      fc
        .tuple(
          fc.constantFrom('', '-'),
          fc.constantFrom('0.', '1.', '12.', '123456789.', '0.00000', '0.000000', ''),
          fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 17 }),
        )
        .map(([sign, lead, digits]) => `${sign}${lead}${digits}`),
      fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }).map(String),
    );
    fc.assert(
      fc.property(tokens, (token) => {
        const expected = String(Number(token)) === token;
        expect([token, isCanonicalJsonText(token)]).toEqual([token, expected]);
        expect(isCanonicalByReference(token)).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses text with a lone surrogate, raw or escaped, which JsonReader refuses', () => {
    fc.assert(
      fc.property(json, loneSurrogate, fc.nat(), (value, lone, at) => {
        const inner = canonicalJson(value);
        // Between two letters, so it cannot pair with a neighbour.
        const text = JSON.stringify([`${inner.slice(0, at % (inner.length + 1))}x${lone}x`]);
        expect(isCanonicalJsonText(text)).toBe(false);
        expect(isCanonicalJsonText(text.replace(JSON.stringify(lone).slice(1, -1), lone))).toBe(false);
        expect(isCanonicalByReference(text)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('takes nesting exactly to the depth JsonReader does', () => {
    for (const [open, close, inner] of [
      ['[', ']', '0'],
      ['[', ']', '[]'],
      ['{"a":', '}', '"x"'],
      ['{"a":', '}', '{}'],
    ] as const) {
      for (const depth of [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
        const text = nest(depth, inner, open, close);
        expect([text, isCanonicalJsonText(text)]).toEqual([text, isCanonicalByReference(text)]);
      }
    }
    expect(isCanonicalJsonText(nest(MAX_JSON_DEPTH, '0'))).toBe(true);
    expect(isCanonicalJsonText(nest(MAX_JSON_DEPTH + 1, '0'))).toBe(false);
    expect(isCanonicalJsonText(nest(100_000, '0'))).toBe(false);
  });
});

/** What the envelope scan must answer: the payload's text, when the full check would hash the same. */
function payloadTextByReference(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, JsonValue>;
  if (!isCanonicalByCanonicalize(fields, text) || !Object.hasOwn(fields, 'payload')) return undefined;
  // readFields reads each field's value as a root of its own; its keys only the schema reads. A
  // key with a lone surrogate the scan refuses all the same (a false that only costs time).
  for (const k of Object.keys(fields)) {
    if (!(k as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
    try {
      canonicalJson(fields[k]!);
    } catch {
      return undefined;
    }
  }
  return canonicalJson(fields.payload!);
}

/** Canonical without JsonReader's depth limit, which readFields counts from each field instead. */
function isCanonicalByCanonicalize(value: unknown, text: string): boolean {
  try {
    return canonicalize(value) === text;
  } catch {
    return false;
  }
}

const spanText = (text: string) => {
  const span = scanCanonicalEnvelope(text);
  return span === undefined ? undefined : text.slice(span.payloadStart, span.payloadEnd);
};

describe('scanCanonicalEnvelope', () => {
  const objects = fc.tuple(fc.dictionary(key, json, { maxKeys: 5 }), fc.option(json), noise, fc.gen());
  it('finds the payload text exactly in canonical text whose fields JsonReader accepts', () => {
    let found = 0;
    fc.assert(
      fc.property(objects, ([fields, payload, n, gen]) => {
        const value = payload === null ? fields : { ...fields, payload };
        const text = write(value, picker(gen), n);
        const expected = payloadTextByReference(text);
        expect([text, spanText(text)]).toEqual([text, expected]);
        if (expected !== undefined) found++;
      }),
      { numRuns: 5000 },
    );
    expect(found).toBeGreaterThan(1000);
  });

  it('counts depth from each field, as readFields does', () => {
    for (const depth of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      for (const field of ['payload', 'z']) {
        const text = `{${field === 'z' ? '"payload":1,' : ''}"${field}":${nest(depth, '0')}}`;
        expect([text, spanText(text)]).toEqual([text, payloadTextByReference(text)]);
      }
    }
    expect(spanText(`{"payload":${nest(MAX_JSON_DEPTH, '0')}}`)).toBe(nest(MAX_JSON_DEPTH, '0'));
  });

  it('takes only the envelope object’s own payload member', () => {
    expect(spanText('{"a":{"payload":1}}')).toBeUndefined();
    expect(spanText('[{"payload":1}]')).toBeUndefined();
    expect(spanText('{"a":{"payload":1},"payload":[2]}')).toBe('[2]');
    expect(spanText('{"payload":2,"payload_sha256":"x"}')).toBe('2');
    expect(spanText('{"payload":1,"payload":2}')).toBeUndefined();
    expect(spanText('{"payload":1} ')).toBeUndefined();
  });
});

type Outcome = { envelope: Envelope } | { code: string; message: string; details: unknown; cause: unknown };

function outcome(decode: (body: string) => Envelope, body: string): Outcome {
  try {
    return { envelope: decode(body) };
  } catch (error) {
    if (!(error instanceof QueueError)) throw error;
    return { code: error.code, message: error.message, details: error.details, cause: error.cause };
  }
}

const SHA = 'ab'.repeat(32);
const inlineInput = fc.record({
  event_id: fc.oneof(
    fc.stringMatching(/^[a-z0-9_:.-]{1,40}$/),
    fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme-composite' }),
  ),
  type: fc.constantFrom('payment.settled', 'ticket.créé', 'a'),
  occurred_at: fc.constantFrom(
    '2026-01-01T00:00:00.000Z',
    '2016-12-31T23:59:60Z',
    '2024-02-29 10:00:00+01:00',
  ),
  payload: json,
});
const referenceInput = fc.record({
  event_id: fc.stringMatching(/^[a-z0-9_:.-]{1,40}$/),
  type: fc.constant('a'),
  payload_ref: fc.record({
    uri: fc.constantFrom('https://store.example/p/1', 'not a uri'),
    sha256: fc.constantFrom(SHA, 'x'),
  }),
});

type Mutation = (body: string, envelope: Envelope, pick: Pick) => string;
const mutations: Record<string, Mutation> = {
  none: (body) => body,
  replaceChar: (body, _, pick) => {
    const chars = '"\\{}[],:0123456789abcdefxyzé \n\u0000\ud800\u{1F600}';
    const at = pick(body.length);
    return body.slice(0, at) + [...chars][pick([...chars].length)] + body.slice(at + 1);
  },
  insertWhitespace: (body, _, pick) => {
    const at = pick(body.length + 1);
    return body.slice(0, at) + [' ', '\n', '\t', '\r'][pick(4)] + body.slice(at);
  },
  deleteChar: (body, _, pick) => {
    const at = pick(body.length);
    return body.slice(0, at) + body.slice(at + 1);
  },
  payloadRewritten: (body, envelope, pick) => {
    if (!('payload' in envelope) || envelope.payload === undefined) return body;
    const from = `"payload":${canonicalJson(envelope.payload)}`;
    return body.replace(from, `"payload":${write(envelope.payload, pick, [1, 10, 40][pick(3)]!)}`);
  },
  payloadIndented: (body, envelope) => {
    if (!('payload' in envelope) || envelope.payload === undefined) return body;
    const from = `"payload":${canonicalJson(envelope.payload)}`;
    return body.replace(from, `"payload":${JSON.stringify(envelope.payload, null, 2)}`);
  },
  otherDigest: (body, envelope, pick) => {
    const other = payloadDigest([pick(1000)]);
    return body.replace(`"payload_sha256":"${envelope.payload_sha256}"`, `"payload_sha256":"${other}"`);
  },
  fieldRepeated: (body, _, pick) => {
    const repeated = ['"payload":[1]', `"payload_sha256":"${payloadDigest([1])}"`, '"v":1', '"event_id":"x"'][
      pick(4)
    ];
    return `${body.slice(0, -1)},${repeated}}`;
  },
  fieldRemoved: (_, envelope, pick) => {
    const entries = Object.entries(envelope);
    const gone = pick(entries.length);
    return canonicalize(Object.fromEntries(entries.filter((_entry, i) => i !== gone)))!;
  },
  fieldAdded: (body, _, pick) => `${body.slice(0, -1)},"${['zzz', 'w', 'payload_ref'][pick(3)]}":{}}`,
  insertionOrder: (_, envelope) => JSON.stringify(envelope),
};

describe('decodeEnvelope', () => {
  it('takes the scan for every body encodeEnvelope writes with a payload', () => {
    fc.assert(
      fc.property(inlineInput, (input) => {
        const envelope = prepareEnvelope(input as Parameters<typeof prepareEnvelope>[0]);
        const body = encodeEnvelope(envelope);
        expect(scanCanonicalEnvelope(body)).toBeDefined();
        // -0 goes out as 0, as canonical JSON writes it.
        expect(decodeEnvelope(body)).toEqual(JSON.parse(JSON.stringify(envelope)));
      }),
      { numRuns: 1000 },
    );
  });

  it('returns and throws exactly what the full check does, for bodies encoded and then changed', () => {
    const seen = { scannedAccepted: 0, scannedRefused: 0, fullAccepted: 0, fullRefused: 0 };
    fc.assert(
      fc.property(
        fc.oneof({ weight: 4, arbitrary: inlineInput }, { weight: 1, arbitrary: referenceInput }),
        fc.constantFrom(...Object.keys(mutations)),
        fc.gen(),
        (input, mutation, gen) => {
          let envelope: Envelope;
          try {
            envelope = prepareEnvelope(input as Parameters<typeof prepareEnvelope>[0]);
          } catch {
            return;
          }
          const body = mutations[mutation]!(encodeEnvelope(envelope), envelope, picker(gen));
          const expected = outcome(decodeEnvelopeFully, body);
          expect(outcome(decodeEnvelope, body)).toEqual(expected);
          const path = scanCanonicalEnvelope(body) === undefined ? 'full' : 'scanned';
          seen[`${path}${'envelope' in expected ? 'Accepted' : 'Refused'}` as keyof typeof seen]++;
        },
      ),
      { numRuns: 6000 },
    );
    // Each way through must have come up, or the comparison proves little.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(100);
  });

  it('returns and throws what the full check does at the depth limit and past it', () => {
    const envelope = prepareEnvelope({
      event_id: 'e1',
      type: 't',
      payload: JSON.parse(nest(MAX_JSON_DEPTH, '0')),
    });
    const body = encodeEnvelope(envelope);
    expect(scanCanonicalEnvelope(body)).toBeDefined();
    expect(outcome(decodeEnvelope, body)).toEqual({ envelope });
    const deeper = body.replace(nest(MAX_JSON_DEPTH, '0'), nest(MAX_JSON_DEPTH + 1, '0'));
    expect(scanCanonicalEnvelope(deeper)).toBeUndefined();
    const refused = outcome(decodeEnvelope, deeper);
    expect(refused).toEqual(outcome(decodeEnvelopeFully, deeper));
    expect(refused).toMatchObject({
      code: 'INVALID_ENVELOPE',
      message: expect.stringContaining('nests deeper'),
    });
  });

  it('throws what the full check does for bodies that are no envelope at all', () => {
    for (const body of [
      '',
      '{',
      'null',
      '[]',
      '1',
      '"x"',
      '{}',
      '{"payload":1}',
      '{"payload":1,"v":1}',
      1 as never,
    ]) {
      expect(outcome(decodeEnvelope, body)).toEqual(outcome(decodeEnvelopeFully, body));
    }
  });
});
