/**
 * `deriveProviderKey(key, rules)` with arbitrary keys and rules (within their types: a string
 * key; rules with a number `maxLength`, a RegExp `allowed`, a string `escape`, a function
 * `refuse`). Either a key the rules accept (short enough, every character allowed, not refused)
 * or a typed QueueError; and two distinct keys never share an output.
 */
import { deriveProviderKey, type ProviderKeyRules } from '@queueport/core/driver';
import fc from 'fast-check';
import { oddNumber, oddString } from '../arbitraries';
import { check, outcomeOfSync } from '../context';
import type { FuzzTarget } from './fuzz-target';

const ALLOWED: RegExp[] = [
  /[\x21-\x7e]/,
  /[A-Za-z0-9_:.-]/,
  /[^:]/,
  /[0-9a-z_]/,
  /./,
  /./su,
  /[\p{L}\p{N}_]/u,
  /[a-f0-9_z]/,
  /[a-z]/g,
  /[a-z]/y,
  /x/,
  /[\s\S]/,
];

const REFUSE: Array<((key: string) => boolean) | undefined> = [
  undefined,
  (key) => /^\d+$/.test(key),
  (key) => key.length > 10,
  (key) => key.startsWith('_'),
  () => true,
  (key) => key.includes('z'),
];

const rulesArb: fc.Arbitrary<ProviderKeyRules> = fc
  .record(
    {
      maxLength: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 34, max: 200 }) },
        { weight: 2, arbitrary: fc.constantFrom(33, 34, 35, 64, 128) },
        { weight: 1, arbitrary: oddNumber },
      ),
      allowed: fc.constantFrom(...ALLOWED),
      escape: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.constantFrom('_', '~', '-', 'z', '0', '😀') },
        { weight: 1, arbitrary: oddString },
      ),
      refuse: fc.nat({ max: REFUSE.length - 1 }).map((i) => REFUSE[i]),
    },
    { requiredKeys: ['maxLength', 'allowed'] },
  )
  .map((rules) => {
    const clean: ProviderKeyRules = { maxLength: rules.maxLength, allowed: rules.allowed };
    if (rules.escape !== undefined) clean.escape = rules.escape;
    if (rules.refuse !== undefined) clean.refuse = rules.refuse;
    return clean;
  });

const keyArb = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  oddString,
  fc.constantFrom('8472', '_z', '_5f', 'payment_8472:settled:v3', 'x'.repeat(600)),
);

function codePoints(text: string): string[] {
  return [...text];
}

export const targets: FuzzTarget[] = [
  {
    name: 'core-provider-key',
    minCases: 5_000,
    property: () =>
      fc.property(keyArb, keyArb, rulesArb, (a, b, rules) => {
        const first = outcomeOfSync(() => deriveProviderKey(a, rules), 'deriveProviderKey');
        if (!first.ok) return;
        const key = first.value;
        // An empty key comes back empty (event ids are never empty; a provider would refuse it).
        check(
          typeof key === 'string' && (key.length > 0 || a === ''),
          'a provider key is a non-empty string',
        );
        check(codePoints(key).length <= rules.maxLength, `"${key}" is longer than ${rules.maxLength}`);
        check(
          codePoints(key).every((char) => rules.allowed.test(char)),
          `"${key}" has a character the rules do not allow`,
        );
        check(!rules.refuse?.(key), `"${key}" is refused by the rules`);
        check(deriveProviderKey(a, rules) === key, 'the same key gives the same provider key');
        const second = outcomeOfSync(() => deriveProviderKey(b, rules), 'deriveProviderKey');
        if (second.ok && a !== b) check(second.value !== key, `"${a}" and "${b}" share "${key}"`);
      }),
  },
];
