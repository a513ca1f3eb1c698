import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJsonOfParsed, checkedPayloadDigest, sha256Hex } from '../src/envelope/digest';
import type { JsonValue } from '../src/envelope/types';

const digestOf = (value: JsonValue) => sha256Hex(canonicalize(value)!);

// Keys that V8 enumerates out of insertion order (integer-like ones), `__proto__`, and keys that
// differ only by UTF-16 code unit order from what a code-point sort would give.
const awkwardKey = fc.constantFrom(
  '0',
  '1',
  '10',
  '9',
  '__proto__',
  'a',
  'B',
  '\u{1F600}',
  '\uFF5E',
  'é',
  '',
);
const payload: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(awkwardKey, fc.string()), tie('value'), { maxKeys: 6 }),
  ),
})).value;

// The receive path hashes a parsed payload by a shortcut where its keys are already in canonical
// order: the digest must be canonicalize's, whatever the order and whatever the keys.
describe('checkedPayloadDigest', () => {
  it('equals the digest of canonicalize for a payload parsed from its canonical text', () => {
    fc.assert(
      fc.property(payload, (value) => {
        const parsed = JSON.parse(canonicalize(value)!) as JsonValue;
        expect(checkedPayloadDigest(parsed)).toBe(digestOf(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals the digest of canonicalize for a payload in any key order', () => {
    fc.assert(
      fc.property(payload, (value) => {
        expect(checkedPayloadDigest(value)).toBe(digestOf(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('is not fooled by integer-like keys, which V8 enumerates before the others', () => {
    const parsed = JSON.parse('{"10":1,"9":2,"a":{"2":0,"10":1}}') as JsonValue;
    expect(checkedPayloadDigest(parsed)).toBe(digestOf(parsed));
    expect(JSON.stringify(parsed)).not.toBe(canonicalize(parsed));
  });
});

describe('canonicalJsonOfParsed', () => {
  const json = fc
    .jsonValue({ maxDepth: 4, noUnicodeString: false })
    .map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

  it('equals canonicalize for data parsed from canonical text and from any other order', () => {
    fc.assert(
      fc.property(json, (value) => {
        const canonical = canonicalize(value)!;
        expect(canonicalJsonOfParsed(JSON.parse(canonical) as JsonValue)).toBe(canonical);
        expect(canonicalJsonOfParsed(JSON.parse(JSON.stringify(value)) as JsonValue)).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });

  it('sorts integer-like keys, which JSON.parse enumerates first, as canonical JSON does', () => {
    const parsed = JSON.parse('{"10":1,"2":2,"a":{"b":1,"a":2}}') as JsonValue;
    expect(canonicalJsonOfParsed(parsed)).toBe('{"10":1,"2":2,"a":{"a":2,"b":1}}');
  });
});
