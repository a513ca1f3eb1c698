import type { JsonValue } from '@queueport/core';
import fc from 'fast-check';

/** Attribute maps that are valid everywhere: portable names, any Unicode values. */
export const attributesArb: fc.Arbitrary<Record<string, string>> = fc
  .dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/), fc.string({ maxLength: 40, unit: 'grapheme' }), {
    maxKeys: 3,
  })
  .map((attributes) => ({ ...attributes })); // fast-check builds null-prototype objects

/** JSON payloads without -0, which JSON itself cannot carry. */
export const payloadArb: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 3, noUnicodeString: false })
  .map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);

/** Event-id suffixes shaped like real business transitions, Unicode included. */
export const eventSuffixArb: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('payment', 'ticket', 'refund'),
      fc.nat(99_999),
      fc.constantFrom('settled', 'opened'),
      fc.nat(9),
    )
    .map(([kind, n, state, v]) => `${kind}_${n}:${state}:v${v}`),
  fc.string({ minLength: 1, maxLength: 24, unit: 'grapheme' }).filter((s) => ![...s].some(isControl)),
);

/** Characters of every UTF-8 width: a limit counted in characters instead of bytes shows here. */
export const UTF8_UNITS = ['a', 'é', '€', '𝄞'] as const;

function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
}
