/**
 * `decodeEnvelope(body)` with arbitrary bodies: any string, JSON of anything, and real envelopes
 * tampered with (payload changed, lone surrogates in escapes, numbers past double range, deep
 * nesting, duplicate and __proto__ keys). A body decodes to an envelope that encodes and decodes
 * again to itself, or is refused with INVALID_ENVELOPE; never anything else.
 */
import { decodeEnvelope, encodeEnvelope, prepareEnvelope } from '@queueport/core';
import fc from 'fast-check';
import { LONE_SURROGATES, oddValue } from '../arbitraries';
import { check, outcomeOfSync } from '../context';
import type { FuzzTarget } from './fuzz-target';

const base = prepareEnvelope({
  event_id: 'order_1:created:v1',
  type: 'order.created',
  occurred_at: '2026-01-01T00:00:00Z',
  payload: { id: 1, items: ['a', 'b'], note: 'ünïcödé' },
});
const body = encodeEnvelope(base);
const digestOf = (payload: unknown) =>
  prepareEnvelope({ event_id: 'x', type: 'x', payload: payload as never }).payload_sha256;

/** Ways to tamper with a valid body, as text. */
const tamperArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(body),
  fc.constant(body.replace('"a"', '"c"')),
  fc
    .constantFrom(...LONE_SURROGATES)
    .map((lone) =>
      body.replace('ünïcödé', [...lone].map((c) => `\\u${c.charCodeAt(0).toString(16)}`).join('')),
    ),
  fc.constant(body.replace('"id":1', '"id":1e400')),
  fc.constant(body.replace('"id":1', '"id":1,"id":2')),
  fc.constant(body.replace('{"id":1', '{"__proto__":{"x":1},"id":1')),
  fc.constant(`\uFEFF${body}`),
  fc.constant(`${body} `),
  fc.constant(body.slice(0, -1)),
  fc.nat({ max: 200_000 }).map((n) => body.replace('"a"', `${'['.repeat(n)}${']'.repeat(n)}`)),
  fc.integer({ min: 1, max: 80 }).map((n) => {
    // Re-hashed, so only the depth is wrong.
    let payload: unknown = 1;
    for (let i = 0; i < n; i++) payload = [payload];
    const envelope = { ...base, payload, payload_sha256: n > 64 ? 'a'.repeat(64) : digestOf(payload) };
    return JSON.stringify(envelope);
  }),
  fc.jsonValue().map((payload) => JSON.stringify({ ...base, payload, payload_sha256: digestOf(payload) })),
  fc.jsonValue().map((payload) => JSON.stringify({ ...base, payload })),
  fc
    .record({
      key: fc.constantFrom('v', 'event_id', 'type', 'occurred_at', 'payload_sha256', 'extra'),
      value: fc.jsonValue(),
    })
    .map(({ key, value }) => JSON.stringify({ ...base, [key]: value })),
);

const bodyArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: tamperArb },
  { weight: 2, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: oddValue },
);

export const targets: FuzzTarget[] = [
  {
    name: 'core-decode',
    minCases: 5_000,
    property: () =>
      fc.property(bodyArb, (text) => {
        const decoded = outcomeOfSync(() => decodeEnvelope(text as string), 'decodeEnvelope');
        if (!decoded.ok) {
          check(
            decoded.error.code === 'INVALID_ENVELOPE',
            `a bad body is ${decoded.error.code}, not INVALID_ENVELOPE`,
          );
          return;
        }
        const encoded = encodeEnvelope(decoded.value);
        check(
          encodeEnvelope(decodeEnvelope(encoded)) === encoded,
          'decode(encode(decoded)) changed the envelope',
        );
      }),
  },
];
