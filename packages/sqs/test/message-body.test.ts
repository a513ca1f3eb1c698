import { canonicalJson, type JsonValue } from '@queueport/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromSqsBody, toSqsBody } from '../src/message-body';

const NONCHARACTERS = /[\ufffe\uffff]/;

/**
 * Text heavy in what the escaping could confuse: the two noncharacters, backslashes, the letters
 * of `\ufffe` and quotes, with any other code point (astral ones too) mixed in.
 */
const trickyText = fc.string({
  unit: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('\ufffe', '\uffff', '\\', 'u', 'f', 'e', '"', '\\ufffe', '\\uffff'),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constantFrom('\n', '\u0000', '\u001f', '\u2028', '\ud83d\ude00', '\ufffd') },
  ),
  maxLength: 40,
});

/** Canonical JSON as the Queue encodes envelopes: strings in keys and values, nested. */
const canonicalBody = fc
  .letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      trickyText,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(trickyText, tie('value'), { maxKeys: 4 }),
    ),
  }))
  .value.map((value) => canonicalJson(value));

describe('SQS bodies: U+FFFE and U+FFFF travel escaped', () => {
  it('turns every canonical JSON body back into the published bytes exactly', () => {
    fc.assert(
      fc.property(canonicalBody, (body) => {
        expect(fromSqsBody(toSqsBody(body))).toBe(body);
      }),
      { numRuns: 2000 },
    );
  });

  it('never sends U+FFFE or U+FFFF, which SQS refuses', () => {
    fc.assert(
      fc.property(canonicalBody, (body) => {
        expect(toSqsBody(body)).not.toMatch(NONCHARACTERS);
      }),
      { numRuns: 1000 },
    );
  });

  it('sends JSON that still means the same value, three bytes longer per noncharacter', () => {
    fc.assert(
      fc.property(canonicalBody, (body) => {
        const sent = toSqsBody(body);
        expect(JSON.parse(sent)).toEqual(JSON.parse(body));
        const count = [...body].filter((c) => c === '\ufffe' || c === '\uffff').length;
        expect(Buffer.byteLength(sent, 'utf8')).toBe(Buffer.byteLength(body, 'utf8') + 3 * count);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a body without noncharacters exactly as it is, both ways', () => {
    fc.assert(
      fc.property(canonicalBody, (body) => {
        fc.pre(!NONCHARACTERS.test(body));
        expect(toSqsBody(body)).toBe(body);
        expect(fromSqsBody(body)).toBe(body);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the literal text \\ufffe (a backslash, then letters) as text', () => {
    const body = canonicalJson({ text: '\\ufffe and \\uffff and \\\\ufffe' });
    expect(body).toBe('{"text":"\\\\ufffe and \\\\uffff and \\\\\\\\ufffe"}');
    expect(toSqsBody(body)).toBe(body);
    expect(fromSqsBody(body)).toBe(body);
    expect(JSON.parse(fromSqsBody(toSqsBody(body))).text).toBe('\\ufffe and \\uffff and \\\\ufffe');
  });

  it('tells an escaped backslash before a real noncharacter from the literal text', () => {
    const body = canonicalJson({ a: '\\\ufffe', b: '\\ufffe', c: '\uffff\\' });
    const sent = toSqsBody(body);
    expect(sent).toBe('{"a":"\\\\\\ufffe","b":"\\\\ufffe","c":"\\uffff\\\\"}');
    expect(fromSqsBody(sent)).toBe(body);
    expect(JSON.parse(sent)).toEqual({ a: '\\\ufffe', b: '\\ufffe', c: '\uffff\\' });
  });

  it('copies other escapes and a trailing backslash as they are', () => {
    expect(fromSqsBody('{"a":"\\u00ff\\n\\"\\\\uff"}')).toBe('{"a":"\\u00ff\\n\\"\\\\uff"}');
    expect(fromSqsBody('\\uff')).toBe('\\uff');
    expect(fromSqsBody('x\\uffff')).toBe('x\uffff');
  });
});
