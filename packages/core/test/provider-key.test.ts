import { deriveProviderKey, type ProviderKeyRules, QueueError } from '@queueport/core/driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const SQS: ProviderKeyRules = { maxLength: 128, allowed: /[\x21-\x7e]/ };
const BULLMQ: ProviderKeyRules = { maxLength: 256, allowed: /[^:]/, refuse: (key) => /^\d+$/.test(key) };
/** Short enough that long ids take the hashed form. */
const TIGHT: ProviderKeyRules = { maxLength: 40, allowed: /[A-Za-z0-9_]/ };
const RULES: Record<string, ProviderKeyRules> = { SQS, BULLMQ, TIGHT };

/** Ids as applications write them, and as they break providers: ':' '_' digits, any code point, up to 512. */
const ids = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('a', 'Z', '0', '9', ':', '_', '-', '%', ' ', 'é', '😀'),
    minLength: 1,
    maxLength: 24,
  }),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.string({ unit: 'binary', minLength: 100, maxLength: 512 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 120, maxLength: 140 }),
);

function codePoints(text: string): string[] {
  return [...text];
}

function assertFits(key: string, rules: ProviderKeyRules): void {
  const chars = codePoints(key);
  expect(chars.length).toBeLessThanOrEqual(rules.maxLength);
  for (const char of chars)
    expect(rules.allowed.test(char), `char ${JSON.stringify(char)} in ${key}`).toBe(true);
  expect(rules.refuse?.(key) ?? false).toBe(false);
}

describe('deriveProviderKey: every output is one the provider takes', () => {
  it.each(Object.entries(RULES))('%s rules', (_name, rules) => {
    fc.assert(
      fc.property(ids, (id) => {
        assertFits(deriveProviderKey(id, rules), rules);
      }),
      { numRuns: 300 },
    );
  });
});

describe('deriveProviderKey: distinct ids never share a key', () => {
  it.each(Object.entries(RULES))('%s rules', (_name, rules) => {
    fc.assert(
      fc.property(fc.uniqueArray(ids, { minLength: 2, maxLength: 30 }), (batch) => {
        const keys = batch.map((id) => deriveProviderKey(id, rules));
        expect(new Set(keys).size).toBe(batch.length);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps near-collisions apart under a rule forbidding ":"', () => {
    const noColon: ProviderKeyRules = { maxLength: 128, allowed: /[^:]/ };
    const near = ['a_3a', 'a:', 'a_5f3a', 'a_', '_', '__', '_3a', ':', 'a_3A', 'a%3a'];
    const keys = near.map((id) => deriveProviderKey(id, noColon));
    expect(new Set(keys).size).toBe(near.length);
    expect(deriveProviderKey('a:', noColon)).toBe('a_3a');
    expect(deriveProviderKey('a_3a', noColon)).toBe('a_5f3a');
  });

  it('keeps an integer id apart from its escaped form where integers are refused', () => {
    const near = ['123', '_3123', '_31_32_33', '0', '_30', '00'];
    const keys = near.map((id) => deriveProviderKey(id, BULLMQ));
    expect(new Set(keys).size).toBe(near.length);
    for (const key of keys) assertFits(key, BULLMQ);
  });

  it("keeps an id apart from another id's hashed form, and from that form's own hash", () => {
    for (const rules of [SQS, TIGHT, { ...SQS, maxLength: 200 }]) {
      const long = 'order:'.repeat(60);
      const hashed = deriveProviderKey(long, rules);
      expect(hashed.startsWith('_z')).toBe(true);
      const ofHashed = deriveProviderKey(hashed, rules);
      expect(ofHashed).not.toBe(hashed);
      expect(deriveProviderKey(ofHashed, rules)).not.toBe(ofHashed);
      expect(deriveProviderKey(ofHashed, rules)).not.toBe(hashed);
    }
  });

  it('tells apart 512-character ids that differ only in their last character', () => {
    const base = 'x'.repeat(511);
    for (const rules of [SQS, TIGHT]) {
      const keys = ['a', 'b', 'c'].map((last) => deriveProviderKey(base + last, rules));
      expect(new Set(keys).size).toBe(3);
      for (const key of keys) assertFits(key, rules);
    }
  });

  // Known bug (reported): lone surrogates pass envelope validation, but Buffer.from(char, 'utf8')
  // turns every one into U+FFFD's bytes, so distinct ids meet. Flip to `it` once fixed.
  it('keeps ids with distinct lone surrogates apart', () => {
    const keys = ['order-\uD800', 'order-\uDC00', 'order-\uFFFD'].map((id) => deriveProviderKey(id, SQS));
    expect(new Set(keys).size).toBe(3);
  });
});

describe('deriveProviderKey: readable where it can be', () => {
  it('passes an already-safe id through unchanged', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9.-]{1,128}$/), (id) => {
        expect(deriveProviderKey(id, SQS)).toBe(id);
      }),
    );
    expect(deriveProviderKey('payment_8472:settled:v3', BULLMQ)).toBe('payment_5f8472_3asettled_3av3');
    expect(deriveProviderKey('payment-8472:settled:v3', SQS)).toBe('payment-8472:settled:v3');
  });

  it('escapes characters SQS refuses as their UTF-8 bytes', () => {
    expect(deriveProviderKey('a b', SQS)).toBe('a_20b');
    expect(deriveProviderKey('é', SQS)).toBe('_c3_a9');
    expect(deriveProviderKey('😀', SQS)).toBe('_f0_9f_98_80');
  });

  it('escapes the first character of an integer id for BullMQ, which takes integers as its own ids', () => {
    expect(deriveProviderKey('8472', BULLMQ)).toBe('_38472');
    expect(deriveProviderKey('8472a', BULLMQ)).toBe('8472a');
  });

  it('hashes an id too long to escape: at most maxLength, at least 128 bits of digest', () => {
    const key = deriveProviderKey('€'.repeat(50), SQS);
    expect(key).toMatch(/^_z[0-9a-f]{64}$/);
    expect(deriveProviderKey('x'.repeat(100), TIGHT)).toMatch(/^_z[0-9a-f]{38}$/);
    expect(deriveProviderKey('x'.repeat(40), TIGHT)).toBe('x'.repeat(40));
    expect(deriveProviderKey('x'.repeat(41), TIGHT)).toMatch(/^_z/);
  });

  it('honours another escape character', () => {
    const rules: ProviderKeyRules = { maxLength: 64, allowed: /[A-Za-z0-9~]/, escape: '~' };
    expect(deriveProviderKey('a:b~', rules)).toBe('a~3ab~7e');
    expect(deriveProviderKey('x'.repeat(65), rules)).toMatch(/^~z[0-9a-f]{62}$/);
  });
});

describe('deriveProviderKey: rules that could not keep the promise are refused', () => {
  it.each<[string, ProviderKeyRules, RegExp]>([
    ['maxLength 33', { ...SQS, maxLength: 33 }, /maxLength must be an integer >= 34/],
    ['fractional maxLength', { ...SQS, maxLength: 64.5 }, /maxLength must be an integer >= 34/],
    ['an escape the provider refuses', { ...SQS, escape: ' ' }, /allowed must accept " "/],
    ['the default escape refused', { maxLength: 64, allowed: /[A-Za-z0-9]/ }, /allowed must accept "_"/],
    ['an escape of two characters', { ...SQS, escape: '__' }, /escape must be one character/],
    ['hex digits refused', { maxLength: 64, allowed: /[g-z_]/ }, /allowed must accept "0"/],
    ['a global RegExp', { ...SQS, allowed: /[\x21-\x7e]/g }, /must not be a global or sticky/],
  ])('%s', (_name, rules, problem) => {
    let error: unknown;
    try {
      deriveProviderKey('evt', rules);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QueueError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toMatch(problem);
  });

  it('refuses, rather than returns, a key the rules refuse even hashed', () => {
    const refuseAll: ProviderKeyRules = { ...SQS, refuse: () => true };
    expect(() => deriveProviderKey('evt', refuseAll)).toThrow(/refuse even the hashed form/);
  });
});

describe('deriveProviderKey: inputs outside its types', () => {
  it('refuses an empty key and malformed rules with INVALID_ARGUMENT', () => {
    const rules = { maxLength: 128, allowed: /[\x21-\x7e]/ };
    for (const call of [
      () => deriveProviderKey('', rules),
      () => deriveProviderKey(7 as unknown as string, rules),
      () => deriveProviderKey('a', null as unknown as typeof rules),
      () => deriveProviderKey('a', { maxLength: 128, allowed: '[a-z]' as unknown as RegExp }),
      () => deriveProviderKey('a', { ...rules, refuse: true as unknown as () => boolean }),
      () => deriveProviderKey('a', { ...rules, escape: 5 as unknown as string }),
    ]) {
      expect(call).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});
