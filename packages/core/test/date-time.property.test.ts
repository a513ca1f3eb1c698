import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, prepareEnvelope } from '../src/envelope';
import { isDateTime } from '../src/envelope/date-time';
import { isQueueError } from '../src/errors';
import { createAjv } from '../src/validation/ajv';

// The reference: ajv-formats' own full `date-time`, from the instance every other schema uses.
const ajvDateTime = createAjv({ schemas: 'own' }).compile({ type: 'string', format: 'date-time' });
const reference = (text: string): boolean => ajvDateTime(text) as boolean;

const pad2 = (n: number) => String(n).padStart(2, '0');
const digitString = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
/** Two digits up to `max` (a little past what is valid), now and then a wrong width or a letter. */
const twoDigits = (max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0, max }).map(pad2) },
    { weight: 1, arbitrary: digitString(2, 2) },
    { weight: 1, arbitrary: fc.constantFrom('', '0', '000', '1a', 'o1', '٣٣') },
  );
const mostly = (usual: string, ...others: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
  );

const year = fc.oneof(
  fc.constantFrom('2000', '1900', '2100', '1600', '2024', '2023', '0000', '0004', '9999'),
  digitString(4, 4),
  digitString(3, 5),
  fc.constantFrom('20a4', '+2024', '-2024'),
);
// What ajv-formats splits on (`t` or `\s`, any case), and what it does not.
const separator = fc.constantFrom(
  'T',
  't',
  ' ',
  '\t',
  '\n',
  '\v',
  '\r',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u180e',
  '\u200b',
  'x',
  'Z',
  '_',
  '',
  'TT',
  'T ',
);
const fraction = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: digitString(1, 22).map((d) => `.${d}`) },
  { weight: 1, arbitrary: fc.constantFrom('.', '.99999999999999999999', '.5', ',5', '..5') },
);
const offset = fc
  .tuple(fc.constantFrom('+', '-'), twoDigits(25), mostly(':', '', ';', '::'), fc.option(twoDigits(61)))
  .map(([sign, hh, colon, mm]) => (mm === null ? `${sign}${hh}` : `${sign}${hh}${colon}${mm}`));
const zone = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('Z', 'z') },
  { weight: 3, arbitrary: offset },
  { weight: 1, arbitrary: fc.constantFrom('', '+', '-', 'Zz', 'Z ', ' Z', 'Z\n', 'UTC', '+0100Z') },
);

const ordinary = fc
  .tuple(
    year,
    mostly('-', '/', ''),
    twoDigits(13),
    mostly('-', '/', ''),
    fc.oneof(twoDigits(32), fc.constantFrom('28', '29', '30', '31')),
    separator,
    twoDigits(25),
    mostly(':', '.', ''),
    twoDigits(61),
    mostly(':', '.', ''),
    fc.oneof(twoDigits(61), fc.constant('60')),
    fraction,
    zone,
  )
  .map((parts) => parts.join(''));

// ajv-formats allows :60 where the time, moved to UTC by its offset, is 23:59 (its arithmetic,
// quirks included): local times around that point, for every offset.
const leapSecond = fc
  .record({
    sign: fc.constantFrom(1, -1),
    tzH: fc.integer({ min: 0, max: 24 }),
    tzM: fc.integer({ min: 0, max: 60 }),
    nudge: fc.integer({ min: -2, max: 2 }),
    colon: fc.boolean(),
    zoneForm: fc.constantFrom('full', 'hours', 'z'),
    fraction: fc.constantFrom('', '.5', '.999', '.99999999999999999999'),
    day: fc.constantFrom('2016-12-31', '2017-01-01', '2016-06-30'),
  })
  .map(({ sign, tzH, tzM, nudge, colon, zoneForm, fraction: f, day }) => {
    const minutes =
      (((23 * 60 + 59 + sign * (tzH * 60 + (zoneForm === 'full' ? tzM : 0)) + nudge) % 1440) + 1440) % 1440;
    const local = `${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}:60${f}`;
    const s = sign < 0 ? '-' : '+';
    const tz =
      zoneForm === 'z'
        ? 'Z'
        : zoneForm === 'hours'
          ? `${s}${pad2(tzH)}`
          : `${s}${pad2(tzH)}${colon ? ':' : ''}${pad2(tzM)}`;
    return `${day}T${local}${tz}`;
  });

const februaries = fc
  .tuple(
    fc.oneof(fc.constantFrom('1900', '2000', '2100', '2400', '2023', '2024', '0000'), digitString(4, 4)),
    fc.constantFrom('28', '29', '30'),
  )
  .map(([y, d]) => `${y}-02-${d}T12:00:00Z`);

/** One character replaced, inserted or removed in a valid date-time. */
const mutated = fc
  .tuple(
    fc
      .date({ min: new Date(0), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    fc.nat(),
    fc.constantFrom('replace', 'insert', 'delete'),
    fc.constantFrom(...'0123456789-:.tTzZ+ \t\u00a0\u2028x'),
  )
  .map(([text, at, how, c]) => {
    const i = at % text.length;
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + c + text.slice(how === 'insert' ? i : i + 1);
  });

const grammarAlphabet = fc.string({
  unit: fc.constantFrom(...'0123456789-:.tTzZ+ '),
  minLength: 10,
  maxLength: 40,
});

describe('isDateTime', () => {
  it('answers what ajv-formats full date-time answers, for strings near its grammar', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(ordinary, leapSecond, februaries, mutated, grammarAlphabet), (text) => {
        const expected = reference(text);
        expect(isDateTime(text)).toBe(expected);
        if (expected) accepted++;
        else refused++;
      }),
      { numRuns: 30_000 },
    );
    // Both answers must come up often, or the comparison proves little.
    expect(accepted).toBeGreaterThan(3000);
    expect(refused).toBeGreaterThan(3000);
  });

  it('answers what ajv-formats answers for arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })),
        (text) => {
          expect(isDateTime(text)).toBe(reference(text));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('answers what ajv-formats answers for every UTF-16 code unit in every position', () => {
    const valid = '2016-12-31T23:59:60.5+00:00';
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      for (let at = 0; at <= valid.length; at++) {
        const replaced = valid.slice(0, at) + c + valid.slice(at + 1);
        const inserted = valid.slice(0, at) + c + valid.slice(at);
        if (isDateTime(replaced) !== reference(replaced))
          expect(isDateTime(replaced)).toBe(reference(replaced));
        if (isDateTime(inserted) !== reference(inserted))
          expect(isDateTime(inserted)).toBe(reference(inserted));
      }
    }
  });

  it('keeps the quirks it copies: any t or whitespace separates, leap seconds go by UTC', () => {
    for (const text of [
      '2024-02-29t10:00:00z',
      '2024-02-29 10:00:00Z',
      '2024-02-29\u300010:00:00Z',
      '2016-12-31T23:59:60Z',
      '2017-01-01T00:59:60+01:00',
      '2016-12-31T22:59:60-0100',
      '2016-12-31T23:59:59.99999999999999999+00',
    ]) {
      expect([text, isDateTime(text)]).toEqual([text, true]);
      expect(reference(text)).toBe(true);
    }
    for (const text of [
      '2023-02-29T10:00:00Z',
      '1900-02-29T10:00:00Z',
      '2024-13-01T10:00:00Z',
      '2024-01-01T10:00:00',
      '2024-01-01T24:00:00Z',
      '2016-12-31T23:58:60Z',
      '2024-01-01T10:00:00+24:00',
      '2024-01-01TT10:00:00Z',
      '2024-01-01T10:00:00.Z',
    ]) {
      expect([text, isDateTime(text)]).toEqual([text, false]);
      expect(reference(text)).toBe(false);
    }
  });
});

// The envelope schema takes isDateTime in place of ajv-formats' own under the same name: what an
// envelope's occurred_at may be, and the words of a refusal, are those of before.
describe('envelope occurred_at', () => {
  const base = prepareEnvelope({ event_id: 'e1', type: 't', payload: { a: 1 } });
  const problemsOf = (body: string): string[] | undefined => {
    try {
      decodeEnvelope(body);
      return undefined;
    } catch (error) {
      if (!isQueueError(error, 'INVALID_ENVELOPE')) throw error;
      return error.details.problems as string[];
    }
  };

  it('refuses a bad occurred_at with the message ajv-formats gave it', () => {
    const body = encodeEnvelope({ ...base, occurred_at: '2023-02-29T00:00:00Z' });
    expect(problemsOf(body)).toEqual(['occurred_at must match format "date-time"']);
    expect(() =>
      prepareEnvelope({ event_id: 'e1', type: 't', payload: 1, occurred_at: 'yesterday' }),
    ).toThrow('invalid envelope: occurred_at must match format "date-time"');
  });

  it('is accepted exactly when ajv-formats accepts it', () => {
    fc.assert(
      fc.property(fc.oneof(ordinary, leapSecond, februaries, mutated), (occurredAt) => {
        const problems = problemsOf(encodeEnvelope({ ...base, occurred_at: occurredAt }));
        expect(problems).toEqual(
          reference(occurredAt) ? undefined : ['occurred_at must match format "date-time"'],
        );
      }),
      { numRuns: 3000 },
    );
  });
});
