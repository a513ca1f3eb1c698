import { createHash } from 'node:crypto';
import {
  canonicalJson,
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  isQueueError,
  MAX_EVENT_ID_BYTES,
  payloadDigest,
  prepareEnvelope,
  type QueueError,
} from '@queueport/core';
import { describe, expect, it } from 'vitest';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const OTHER_DIGEST = 'b'.repeat(64);
const inline = { event_id: 'payment_8472:settled:v3', type: 'payment.settled', payload: { amount: 1200 } };
const ref = { uri: 'https://store.example/payloads/8472', sha256: 'a'.repeat(64) };

/** Runs `fn`, asserts it threw INVALID_ENVELOPE, and returns the problems it named. */
function problemsOf(fn: () => unknown): string[] {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(isQueueError(caught, 'INVALID_ENVELOPE'), `expected INVALID_ENVELOPE, got ${String(caught)}`).toBe(
    true,
  );
  const error = caught as QueueError;
  expect(error.retryable).toBe(false);
  const problems = error.details.problems as string[];
  expect(Array.isArray(problems) && problems.length > 0).toBe(true);
  for (const problem of problems) expect(error.message).toContain(problem);
  return problems;
}

describe('prepareEnvelope', () => {
  it('fills v, occurred_at and payload_sha256', () => {
    const at = new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 89));
    const envelope = prepareEnvelope(inline, () => at);
    expect(envelope.v).toBe(1);
    expect(envelope.occurred_at).toBe(at.toISOString());
    expect(envelope.payload_sha256).toBe(sha256(JSON.stringify({ amount: 1200 })));
    expect(envelope.event_id).toBe(inline.event_id);
    expect(envelope.payload).toEqual(inline.payload);
  });

  it('keeps a given occurred_at and a correct given digest', () => {
    const digest = sha256('{"amount":1200}');
    const envelope = prepareEnvelope({
      ...inline,
      occurred_at: '2025-12-31T23:59:59Z',
      payload_sha256: digest,
    });
    expect(envelope.occurred_at).toBe('2025-12-31T23:59:59Z');
    expect(envelope.payload_sha256).toBe(digest);
  });

  it('takes the digest of a payload_ref from the reference', () => {
    const envelope = prepareEnvelope({ event_id: 'e1', type: 't', payload_ref: ref });
    expect(envelope.payload_sha256).toBe(ref.sha256);
    expect(envelope.payload_ref).toEqual(ref);
    expect(Object.hasOwn(envelope, 'payload')).toBe(false);
  });

  it('accepts a null payload (it is JSON)', () => {
    expect(prepareEnvelope({ ...inline, payload: null }).payload_sha256).toBe(sha256('null'));
  });

  it('accepts an event_id of exactly the byte limit in multi-byte characters', () => {
    // '€' is 3 bytes in UTF-8: 170 of them plus 2 ASCII characters is exactly 512 bytes.
    const eventId = '€'.repeat(170) + 'ab';
    expect(Buffer.byteLength(eventId, 'utf8')).toBe(MAX_EVENT_ID_BYTES);
    expect(prepareEnvelope({ ...inline, event_id: eventId }).event_id).toBe(eventId);
  });
});

describe('payload digest (RFC 8785)', () => {
  it('does not depend on key order or number formatting', () => {
    const a = JSON.parse('{"b":1,"a":[1E2,"\\u00e9",1.50,-0]}');
    const b = JSON.parse('{"a":[100.0,"é",1.5,0],"b":1.0}');
    expect(payloadDigest(a)).toBe(payloadDigest(b));
    expect(payloadDigest({ b: 1, a: [1e2, 'é'] })).toBe(payloadDigest({ a: [100, 'é'], b: 1 }));
    expect(prepareEnvelope({ ...inline, payload: a }).payload_sha256).toBe(
      prepareEnvelope({ ...inline, payload: b }).payload_sha256,
    );
  });

  it('is the SHA-256 of the canonical form: sorted keys, shortest numbers, literal UTF-8', () => {
    const canonical = canonicalJson({ b: 1, a: [1e2, 'é', 1e21, 0.1, 'q"\n'], ä: true, A: null });
    // RFC 8785: keys sorted by UTF-16 code units, ES number serialisation, minimal string escaping.
    expect(canonical).toBe('{"A":null,"a":[100,"é",1e+21,0.1,"q\\"\\n"],"b":1,"ä":true}');
    expect(payloadDigest({ b: 1, a: [1e2, 'é', 1e21, 0.1, 'q"\n'], ä: true, A: null })).toBe(
      sha256(canonical),
    );
  });

  it('changes when a value changes, and does not normalise Unicode', () => {
    expect(payloadDigest({ a: 1 })).not.toBe(payloadDigest({ a: 2 }));
    expect(payloadDigest({ a: [1, 2] })).not.toBe(payloadDigest({ a: [2, 1] }));
    expect(payloadDigest('é'.normalize('NFC'))).not.toBe(payloadDigest('é'.normalize('NFD')));
  });
});

describe('invalid envelopes are INVALID_ENVELOPE naming the problem', () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['missing event_id', () => prepareEnvelope({ type: 't', payload: {} } as never), /event_id/],
    ['v: 2', () => prepareEnvelope({ ...inline, v: 2 } as never), /^v /],
    [
      'payload and payload_ref both',
      () => prepareEnvelope({ ...inline, payload_ref: ref } as never),
      /exactly one of payload or payload_ref/,
    ],
    [
      'neither payload nor payload_ref',
      () => prepareEnvelope({ event_id: 'e1', type: 't' } as never),
      /exactly one of payload or payload_ref/,
    ],
    [
      'an unknown field',
      () => prepareEnvelope({ ...inline, priority: 'high' } as never),
      /unknown field "priority"/,
    ],
    [
      'NaN in the payload',
      () => prepareEnvelope({ ...inline, payload: { amount: Number.NaN } }),
      /payload\.amount is not a finite number/,
    ],
    [
      'Infinity deep in the payload',
      () => prepareEnvelope({ ...inline, payload: { a: [1, { b: Infinity }] } }),
      /payload\.a\[1\]\.b is not a finite number/,
    ],
    [
      'a class instance in the payload',
      () => prepareEnvelope({ ...inline, payload: { when: new Date() } as never }),
      /payload\.when is not a plain JSON object/,
    ],
    [
      'undefined in the payload',
      () => prepareEnvelope({ ...inline, payload: { x: undefined } as never }),
      /payload\.x is not JSON/,
    ],
    [
      'payload_sha256 that does not match',
      () => prepareEnvelope({ ...inline, payload_sha256: OTHER_DIGEST }),
      /payload_sha256 does not match the payload/,
    ],
    [
      'payload_sha256 that is not hex',
      () => prepareEnvelope({ ...inline, payload_sha256: 'XYZ' }),
      /payload_sha256/,
    ],
    [
      'payload_ref whose sha256 differs from payload_sha256',
      () => prepareEnvelope({ event_id: 'e1', type: 't', payload_ref: ref, payload_sha256: OTHER_DIGEST }),
      /payload_sha256 differs from payload_ref\.sha256/,
    ],
    [
      'payload_ref with a bad uri',
      () => prepareEnvelope({ event_id: 'e1', type: 't', payload_ref: { ...ref, uri: 'not a uri' } }),
      /payload_ref\.uri/,
    ],
    [
      'event_id with a control character',
      () => prepareEnvelope({ ...inline, event_id: 'payment_1\nX-Injected: 1' }),
      /event_id must match pattern/,
    ],
    [
      'event_id with DEL',
      () => prepareEnvelope({ ...inline, event_id: 'a\u007fb' }),
      /event_id must match pattern/,
    ],
    ['empty event_id', () => prepareEnvelope({ ...inline, event_id: '' }), /event_id/],
    [
      'event_id over 512 bytes in multi-byte characters',
      () => prepareEnvelope({ ...inline, event_id: '€'.repeat(170) + 'abc' }),
      /event_id is longer than 512 bytes/,
    ],
    [
      'a bad occurred_at',
      () => prepareEnvelope({ ...inline, occurred_at: 'yesterday' }),
      /occurred_at must match format "date-time"/,
    ],
    [
      'occurred_at without a time zone',
      () => prepareEnvelope({ ...inline, occurred_at: '2026-01-01T00:00:00' }),
      /occurred_at/,
    ],
    ['a non-object', () => prepareEnvelope('payment_8472' as never), /envelope must be an object/],
    ['an array', () => prepareEnvelope([] as never), /envelope must be an object/],
  ];

  it.each(cases)('%s', (_name, run, expected) => {
    const problems = problemsOf(run);
    expect(
      problems.some((problem) => expected.test(problem)),
      problems.join(' | '),
    ).toBe(true);
  });

  it('names every problem at once', () => {
    const problems = problemsOf(() =>
      prepareEnvelope({ event_id: 'a\tb', type: 't', payload: {}, occurred_at: 'no', extra: 1 } as never),
    );
    expect(problems.some((p) => p.startsWith('event_id'))).toBe(true);
    expect(problems.some((p) => p.startsWith('occurred_at'))).toBe(true);
    expect(problems.some((p) => p.includes('unknown field "extra"'))).toBe(true);
  });

  it('carries the event id in details when it has one', () => {
    try {
      prepareEnvelope({ ...inline, payload_sha256: OTHER_DIGEST });
      expect.unreachable();
    } catch (error) {
      expect((error as QueueError).details.event_id).toBe(inline.event_id);
    }
  });
});

describe('encodeEnvelope / decodeEnvelope', () => {
  const envelope = prepareEnvelope({ ...inline, payload: { z: [1, 'ü', { y: null }], a: true } });

  it('round-trips an inline envelope', () => {
    expect(decodeEnvelope(encodeEnvelope(envelope))).toEqual(envelope);
  });

  it('round-trips a reference envelope', () => {
    const byRef = prepareEnvelope({ event_id: 'e1', type: 't', payload_ref: ref });
    expect(decodeEnvelope(encodeEnvelope(byRef))).toEqual(byRef);
  });

  it('encodes canonically: the same envelope encodes to the same bytes whatever its key order', () => {
    const reordered = Object.fromEntries(Object.entries(envelope).reverse()) as unknown as Envelope;
    expect(encodeEnvelope(reordered)).toBe(encodeEnvelope(envelope));
    expect(encodeEnvelope(envelope)).toBe(canonicalJson(JSON.parse(JSON.stringify(envelope))));
  });

  it('rejects a body that is not JSON', () => {
    expect(problemsOf(() => decodeEnvelope('{"v":1,'))).toEqual(['body is not JSON']);
    expect(problemsOf(() => decodeEnvelope(''))).toEqual(['body is not JSON']);
  });

  it('rejects JSON that is not an envelope', () => {
    expect(problemsOf(() => decodeEnvelope('[1,2]')).length).toBeGreaterThan(0);
    expect(problemsOf(() => decodeEnvelope('null')).length).toBeGreaterThan(0);
  });

  it('rejects a tampered payload', () => {
    const body = encodeEnvelope(envelope);
    const tampered = JSON.parse(body) as { payload: { a: boolean } };
    tampered.payload.a = false;
    expect(problemsOf(() => decodeEnvelope(JSON.stringify(tampered)))).toContain(
      'payload_sha256 does not match the payload',
    );
  });

  it('rejects an envelope missing its digest on decode (prepare fills it, decode does not)', () => {
    const { payload_sha256: _omit, ...rest } = envelope;
    expect(problemsOf(() => decodeEnvelope(JSON.stringify(rest))).join()).toContain('payload_sha256');
  });
});
