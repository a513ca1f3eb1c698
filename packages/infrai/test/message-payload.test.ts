import {
  canonicalJson,
  decodeEnvelope,
  encodeEnvelope,
  type JsonValue,
  prepareEnvelope,
  Queue,
  type QueueError,
} from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYLOAD_MARK, payloadText, unwrapPayload } from '../src/message-payload';
import { event, type Fixture, startFixture } from './support/infrai-fixture';

/** Attribute names the portable Queue accepts (its ATTRIBUTE_NAME); `__proto__` is refused there. */
const nameArb = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/).filter((name) => name !== '__proto__');
/** Values with what JSON must escape: quotes, backslashes, control characters, line separators. */
const valueArb = fc.oneof(
  fc.string({ maxLength: 40, unit: 'grapheme' }),
  fc.string({
    maxLength: 20,
    unit: fc.constantFrom('"', '\\', '\u0000', '\u001f', '\n', '\u2028', 'é', '😀', 'a'),
  }),
);
// fast-check builds null-prototype objects; the Queue hands plain ones.
const attributesArb = fc.dictionary(nameArb, valueArb, { maxKeys: 8 }).map((a) => ({ ...a }));
/** A canonical JSON body, as the Queue always hands one. */
const bodyArb = fc.jsonValue({ maxDepth: 4 }).map((value) => canonicalJson(value as JsonValue));

describe('payloadText / unwrapPayload', () => {
  it('round-trips canonical JSON bodies and attributes through JSON.parse', () => {
    fc.assert(
      fc.property(bodyArb, attributesArb, (body, attributes) => {
        const text = payloadText(body, attributes);
        expect(unwrapPayload(JSON.parse(text))).toEqual({ body, parsed: JSON.parse(body), attributes });
      }),
      { numRuns: 300 },
    );
  });

  it('writes canonical JSON: the same text canonicalJson makes of the parsed value', () => {
    fc.assert(
      fc.property(bodyArb, attributesArb, (body, attributes) => {
        const text = payloadText(body, attributes);
        expect(text).toBe(canonicalJson(JSON.parse(text) as JsonValue));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips real envelopes byte for byte, so the digest still holds', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        attributesArb,
        fc.string({ minLength: 1, maxLength: 30 }),
        (payload, attributes, id) => {
          const envelope = prepareEnvelope({
            event_id: `e-${id}`,
            type: 'property.case',
            payload: payload as JsonValue,
          });
          const body = encodeEnvelope(envelope);
          const unwrapped = unwrapPayload(JSON.parse(payloadText(body, attributes)));
          expect(unwrapped.body).toBe(body);
          expect(decodeEnvelope(unwrapped.body)).toEqual(decodeEnvelope(body));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('marks the payload as queueport’s, attributes only when there are some', () => {
    expect(payloadText('{"a":1}', {})).toBe(`{"envelope":{"a":1},"${PAYLOAD_MARK}":1}`);
    expect(payloadText('{"a":1}', { b: '2', a: '1' })).toBe(
      '{"attributes":{"a":"1","b":"2"},"envelope":{"a":1},"queueport":1}',
    );
  });

  it('gives back a payload that is not queueport’s as it is (canonical), with no attributes', () => {
    expect(unwrapPayload({ z: 1, a: [true, null] })).toEqual({
      body: '{"a":[true,null],"z":1}',
      parsed: { z: 1, a: [true, null] },
      attributes: {},
    });
    expect(unwrapPayload({ queueport: 2, envelope: { a: 1 } }).body).toBe(
      '{"envelope":{"a":1},"queueport":2}',
    );
    expect(unwrapPayload({ queueport: 1 }).body).toBe('{"queueport":1}');
    expect(unwrapPayload(null)).toEqual({ body: 'null', parsed: null, attributes: {} });
  });

  it('gives back a payload whose attributes queueport did not write as it is, for the Queue to refuse', () => {
    // Not dropped one by one (which hands the rest to a handler as if whole): the message is foreign.
    const odd: unknown[] = [
      { n: 1, s: 'x', o: {} },
      { s: null },
      ['a'],
      'text',
      null,
      Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, 'v'])),
    ];
    for (const attributes of odd) {
      const payload = { queueport: 1, envelope: { a: 1 }, attributes };
      const unwrapped = unwrapPayload(payload);
      expect(unwrapped.parsed).toBe(payload);
      expect(unwrapped.attributes).toEqual({});
      expect(JSON.parse(unwrapped.body)).toEqual(payload);
    }
    expect(unwrapPayload({ queueport: 1, envelope: {}, attributes: { s: 'x' } })).toEqual({
      body: '{}',
      parsed: {},
      attributes: { s: 'x' },
    });
  });

  it('keeps an attribute named __proto__ on the way back (the Queue refuses the name; the codec must not lose it anyway)', () => {
    // Assigning `attributes[name] = value` on a plain object would hit the prototype setter for
    // "__proto__", which ignores a string: the attribute would silently disappear.
    const attributes = Object.fromEntries([
      ['__proto__', 'x'],
      ['tenant', 'acme'],
    ]) as Record<string, string>;
    const text = payloadText('{"a":1}', attributes);
    expect(text).toBe('{"attributes":{"__proto__":"x","tenant":"acme"},"envelope":{"a":1},"queueport":1}');
    const back = unwrapPayload(JSON.parse(text));
    expect(Object.entries(back.attributes)).toEqual([
      ['__proto__', 'x'],
      ['tenant', 'acme'],
    ]);
  });
});

describe('through the Queue', () => {
  let fixture: Fixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('attributes and envelopes arrive as they were sent, escaping included', async () => {
    fixture = await startFixture({ simulator: { clock: new VirtualClock() } });
    await fixture.admin.createQueue({ name: 'orders' });
    const queue = await fixture.open('orders');
    const attributes = { quote: 'say "hi"', slash: 'a\\b', ctl: '\u0000\u001f', emoji: '😀', sep: '\u2028' };
    const input = {
      ...event(undefined, { text: 'é "x" \\ \u0007', n: 1.5e-7, list: [1, 'two', null] }),
      attributes,
    };
    await queue.publish(input);
    const [delivery] = await queue.receive();
    expect(delivery!.attributes).toEqual(attributes);
    expect(delivery!.envelope.payload).toEqual(input.envelope.payload);
  });

  it('treats an attribute named __proto__ as the memory driver does, through the Queue', async () => {
    // Whether the Queue takes such a name is core's rule; what Infrai adds is nothing: the
    // attribute comes back as it went out, and the Queue decides the same way for both.
    const attributes = Object.fromEntries([
      ['__proto__', 'x'],
      ['tenant', 'acme'],
    ]) as Record<string, string>;
    const seen = async (queue: Queue, id: string) => {
      const published = await queue.publish({ ...event(id), attributes }).then(
        () => 'published',
        (error: QueueError) => error.code,
      );
      const received = await queue.receive();
      return { published, received: received.map((d) => Object.entries(d.attributes)) };
    };
    const memory = new Queue(new MemoryDriver());
    const fromMemory = await seen(memory, 'proto-mem');
    await memory.close();

    fixture = await startFixture({ simulator: { clock: new VirtualClock() } });
    await fixture.admin.createQueue({ name: 'orders' });
    const queue = await fixture.open('orders');
    expect(await seen(queue, 'proto-infrai')).toEqual(fromMemory);
  });
});
