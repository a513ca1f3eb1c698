import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IDEMPOTENCY_KEY_STYLE, formatIdempotencyKey, parseIdempotencyKey } from '../src';

describe('Idempotency-Key', () => {
  it('is bare (Stripe-style) by default', () => {
    expect(DEFAULT_IDEMPOTENCY_KEY_STYLE).toBe('bare');
    expect(formatIdempotencyKey('payment_8472:settled:v3')).toBe('payment_8472:settled:v3');
  });

  it('structured is an RFC 8941 sf-string with \\ and " escaped', () => {
    expect(formatIdempotencyKey('payment_8472:settled:v3', 'structured')).toBe('"payment_8472:settled:v3"');
    expect(formatIdempotencyKey('a"b\\c d', 'structured')).toBe('"a\\"b\\\\c d"');
  });

  it.each([
    ['non-ASCII', 'évènement'],
    ['a control character', 'evt\u0001'],
    ['DEL', 'evt\u007f'],
    ['empty', ''],
  ])('refuses %s in both styles, with a clear message', (_name, id) => {
    for (const style of ['bare', 'structured'] as const) {
      expect(() => formatIdempotencyKey(id, style)).toThrow(/printable ASCII/);
    }
  });

  it('bare refuses leading or trailing spaces (they would be trimmed in transit)', () => {
    expect(() => formatIdempotencyKey(' evt', 'bare')).toThrow(/spaces/);
    expect(formatIdempotencyKey(' evt', 'structured')).toBe('" evt"');
  });

  it('parses both forms back', () => {
    expect(parseIdempotencyKey('evt_1')).toBe('evt_1');
    expect(parseIdempotencyKey('"evt_1"')).toBe('evt_1');
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toBe('a"b\\c');
    expect(parseIdempotencyKey('"evt_1";p=1')).toBe('evt_1');
    expect(parseIdempotencyKey('"unterminated')).toBeUndefined();
    expect(parseIdempotencyKey('"bad\\escape"')).toBeUndefined();
    expect(parseIdempotencyKey('"x"junk')).toBeUndefined();
    expect(parseIdempotencyKey('')).toBeUndefined();
  });

  it('round-trips any printable-ASCII id in either style (property)', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
    });
    fc.assert(
      fc.property(
        printable,
        fc.constantFrom('bare', 'structured') as fc.Arbitrary<'bare' | 'structured'>,
        (id, style) => {
          // A bare id starting with `"` would read as an sf-string: that case is structured-only.
          fc.pre(style === 'structured' || !id.startsWith('"'));
          expect(parseIdempotencyKey(formatIdempotencyKey(id, style))).toBe(id);
        },
      ),
    );
  });

  it('refuses an id that is not a string instead of handing it back as the key', () => {
    for (const id of [42, null, undefined, { toString: () => 'evt' }]) {
      for (const style of ['bare', 'structured'] as const) {
        expect(() => formatIdempotencyKey(id as never, style)).toThrow(
          expect.objectContaining({
            code: 'INVALID_ARGUMENT',
            details: expect.objectContaining({ field: 'eventId' }),
          }),
        );
      }
    }
  });

  it('refuses an unknown style with INVALID_ARGUMENT, whatever its type, and does not quote it', () => {
    for (const style of ['BARE', 42, Symbol('style'), null]) {
      let thrown: unknown;
      try {
        formatIdempotencyKey('evt', style as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'idempotencyKeyStyle' } });
      expect((thrown as Error).message).not.toContain('BARE');
    }
  });

  it('parses nothing out of a value that is not a string', () => {
    expect(parseIdempotencyKey(undefined as never)).toBeUndefined();
    expect(parseIdempotencyKey(42 as never)).toBeUndefined();
  });
});
