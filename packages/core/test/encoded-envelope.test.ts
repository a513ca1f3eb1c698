import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EnvelopeInput, encodeEnvelope, prepareEnvelope } from '../src/envelope';
import { prepareEncodedEnvelope } from '../src/envelope/validate';

// The Queue publishes the body prepareEncodedEnvelope splices together; it must be exactly the
// canonical encoding of the envelope it returns, for every payload and every field.
describe('prepareEncodedEnvelope', () => {
  it('returns the envelope prepareEnvelope would and, byte for byte, its canonical encoding', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            event_id: fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
            type: fc.constantFrom('payment.settled', 'ticket.créé', 'a'),
            occurred_at: fc.constant('2026-01-01T00:00:00.000Z'),
            payload: fc.jsonValue(),
          },
          { requiredKeys: ['event_id', 'type', 'occurred_at', 'payload'] },
        ),
        (generated) => {
          const input = generated as EnvelopeInput;
          const { envelope, body } = prepareEncodedEnvelope(input);
          expect(envelope).toEqual(prepareEnvelope(input));
          expect(body).toBe(encodeEnvelope(envelope));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('accepts a supplied digest that matches and refuses one that does not, as prepareEnvelope does', () => {
    // A fixed occurred_at: two calls a millisecond apart would otherwise stamp different times.
    const input = {
      event_id: 'e1',
      type: 't',
      occurred_at: '2026-01-01T00:00:00.000Z',
      payload: { amount: 1 },
    };
    const { envelope } = prepareEncodedEnvelope(input);
    expect(prepareEncodedEnvelope({ ...input, payload_sha256: envelope.payload_sha256 }).envelope).toEqual(
      envelope,
    );
    const wrong = { ...input, payload_sha256: '0'.repeat(64) };
    expect(() => prepareEncodedEnvelope(wrong)).toThrow(/payload_sha256/);
    expect(() => prepareEnvelope(wrong)).toThrow(/payload_sha256/);
  });

  it('encodes an envelope that carries a payload_ref instead of a payload', () => {
    const sha256 = 'a'.repeat(64);
    const input = { event_id: 'e2', type: 't', payload_ref: { uri: 's3://bucket/key', sha256 } };
    const { envelope, body } = prepareEncodedEnvelope(input);
    expect(body).toBe(encodeEnvelope(envelope));
  });
});
