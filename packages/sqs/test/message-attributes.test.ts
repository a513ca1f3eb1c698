import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATA_TYPE_BYTES,
  FIFO_ATTRIBUTE,
  fifoMark,
  fromSqsAttributes,
  readFifoMark,
  sqsMessageBytes,
  toSqsAttributes,
} from '../src/message-attributes';

/** What SQS's String type holds: the XML characters (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]). */
const XML_CHARACTER = /^[\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]$/u;
const isXmlText = (value: string) => [...value].every((c) => XML_CHARACTER.test(c));

/** Attribute names as the Queue lets them through. */
const attributeName = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}$/);
/** Any well-formed value (the Queue refuses lone surrogates), weighted towards what SQS refuses as String. */
const attributeValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(
      '\u0000',
      '\u0001',
      '\u0008',
      '\u000b',
      '\u001f',
      '\ufffe',
      '\uffff',
      '\t',
      'a',
      '\u{1f600}',
    ),
    maxLength: 6,
  }),
  fc.constant(''),
);
const attributes = fc.dictionary(attributeName, attributeValue, { maxKeys: 8 });

/** What the SDK hands back after the trip: Binary as a fresh Uint8Array (no Buffer), String as is. */
function throughSqs(sent: Record<string, MessageAttributeValue>): Record<string, MessageAttributeValue> {
  return Object.fromEntries(
    Object.entries(sent).map(([name, value]) => [
      name,
      value.DataType === 'Binary'
        ? {
            DataType: 'Binary',
            BinaryValue: new Uint8Array(value.BinaryValue!),
            StringListValues: [],
            BinaryListValues: [],
          }
        : { DataType: 'String', StringValue: value.StringValue, StringListValues: [], BinaryListValues: [] },
    ]),
  );
}

describe('attributes to SQS and back', () => {
  it('comes back equal, whatever the values', () => {
    fc.assert(
      fc.property(attributes, (given) => {
        expect(fromSqsAttributes(throughSqs(toSqsAttributes(given)))).toEqual(given);
      }),
      { numRuns: 1000 },
    );
  });

  it('sends as String what SQS takes as String and everything else as Binary, byte for byte', () => {
    fc.assert(
      fc.property(attributes, (given) => {
        const sent = toSqsAttributes(given);
        expect(Object.keys(sent)).toEqual(Object.keys(given));
        for (const [name, value] of Object.entries(given)) {
          const wire = sent[name]!;
          if (value === '') {
            // SQS refuses empty values: the one byte UTF-8 never holds stands for it.
            expect(wire).toEqual({ DataType: 'Binary', BinaryValue: Uint8Array.of(0xff) });
          } else if (isXmlText(value)) {
            expect(wire).toEqual({ DataType: 'String', StringValue: value });
          } else {
            expect(wire.DataType).toBe('Binary');
            expect(Buffer.from(wire.BinaryValue!).equals(Buffer.from(value, 'utf8'))).toBe(true);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['a NUL', '\u0000'],
    ['a bell between letters', 'a\u0007b'],
    ['a vertical tab', '\u000b'],
    ['U+FFFE', '\ufffe'],
    ['U+FFFF', 'x\uffff'],
    ['the empty string', ''],
  ])('sends %s as Binary and reads it back', (_what, value) => {
    const sent = toSqsAttributes({ v: value });
    expect(sent.v!.DataType).toBe('Binary');
    expect(fromSqsAttributes(throughSqs(sent))).toEqual({ v: value });
  });

  it.each([
    ['tab, newline and return', '\t\n\r'],
    ['an emoji', '\u{1f600}'],
    ['U+FFFD', '\ufffd'],
    ['text', 'tenant-42'],
  ])('keeps %s a String', (_what, value) => {
    expect(toSqsAttributes({ v: value }).v).toEqual({ DataType: 'String', StringValue: value });
  });

  // Regression test. The bug was:
  // SQS refuses an empty value of any type ("Name, type, value and the message body must not be
  // empty or null", API_MessageAttributeValue; local-aws-sqs answers "Message (user) attribute 'v'
  // must contain a non-empty value of type 'Binary'."). An empty string goes as an empty Binary, so
  // the whole SendMessageBatch call fails on AWS. moto takes it, which is why nothing else catches
  // it. See sqs-driver.test.ts.
  it('never sends an empty value (SQS refuses them, Binary ones included)', () => {
    const sent = toSqsAttributes({ v: '' }).v!;
    const bytes =
      sent.DataType === 'Binary' ? (sent.BinaryValue?.length ?? 0) : (sent.StringValue?.length ?? 0);
    expect(bytes).toBeGreaterThan(0);
    expect(fromSqsAttributes(throughSqs({ v: sent }))).toEqual({ v: '' });
  });

  it("takes the driver's own FIFO attribute out on the way back, and nothing else", () => {
    fc.assert(
      fc.property(attributes, fc.constantFrom('0:d', '1700000000000:g', 'garbage'), (given, mark) => {
        const received = {
          ...throughSqs(toSqsAttributes(given)),
          [FIFO_ATTRIBUTE]: { DataType: 'String', StringValue: mark },
        };
        expect(fromSqsAttributes(received)).toEqual(given);
      }),
      { numRuns: 300 },
    );
    expect(fromSqsAttributes(undefined)).toEqual({});
  });

  it('reads a value SQS returned with neither field as empty', () => {
    expect(fromSqsAttributes({ a: { DataType: 'String' }, b: { DataType: 'Binary' } })).toEqual({
      a: '',
      b: '',
    });
  });
});

describe('sqsMessageBytes: SQS’s count of a message', () => {
  it('is the body plus, per attribute, its name, 6 bytes of data type and its value (1 byte when empty)', () => {
    expect(DATA_TYPE_BYTES).toBe(6);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), attributes, (body, given) => {
        const expected =
          Buffer.byteLength(body, 'utf8') +
          Object.entries(given).reduce(
            (sum, [name, value]) =>
              sum + Buffer.byteLength(name, 'utf8') + 6 + Math.max(1, Buffer.byteLength(value, 'utf8')),
            0,
          );
        const sent = toSqsAttributes(given);
        expect(sqsMessageBytes(body, sent)).toBe(expected);
        // The same after the trip: Binary counts its bytes, not characters.
        expect(sqsMessageBytes(body, throughSqs(sent))).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(sqsMessageBytes('é', { ü: { DataType: 'String', StringValue: '\u{1f600}' } })).toBe(2 + 2 + 6 + 4);
    expect(sqsMessageBytes('', { b: { DataType: 'Binary', BinaryValue: new Uint8Array(5) } })).toBe(
      1 + 6 + 5,
    );
  });
});

describe('the FIFO mark', () => {
  it('round-trips when a message may be delivered and whose group it has', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.boolean(), (notBefore, defaultGroup) => {
        const text = fifoMark({ notBefore, defaultGroup });
        expect(text.length).toBeLessThanOrEqual(18);
        expect(readFifoMark({ DataType: 'String', StringValue: text })).toEqual({ notBefore, defaultGroup });
      }),
    );
  });

  it.each(['', 'x:d', '12:', ':d', '12:q', '12:dd', ' 12:d', '12345678901234567:d'])(
    'reads a mark it did not write (%j) as none',
    (text) => {
      expect(readFifoMark({ DataType: 'String', StringValue: text })).toBeUndefined();
    },
  );

  it('reads a missing attribute as none', () => {
    expect(readFifoMark(undefined)).toBeUndefined();
    expect(readFifoMark({ DataType: 'Binary', BinaryValue: Buffer.from('0:d') })).toBeUndefined();
  });
});
