import { encodeEnvelope, MAX_ATTRIBUTES, prepareEnvelope, QueueError } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, type Session, withSession } from '../support';
import { UTF8_UNITS } from './arbitraries';
import { defineProperty } from './property';

/** The longest portable attribute name. */
const NAME_CHARS = 64;

const caseArb = fc.record({
  unit: fc.constantFrom(...UTF8_UNITS),
  /** One long value and short others, or the bytes spread evenly. */
  spread: fc.constantFrom('one', 'even'),
  /** Bytes below the limit: 0 is right at it. */
  below: fc.constantFrom(0, 0, 1, 3),
  inBatch: fc.boolean(),
});

/**
 * Attributes at every declared limit at once: the most attributes, the longest names, and values
 * so long that envelope plus attributes is right at `maxBodyBytes`. A provider that puts
 * attributes in a header (AMQP closes the whole connection when one outgrows a frame) or
 * truncates values passes every small-attribute check. The queue must carry it intact and go on
 * working afterwards.
 */
export const attributeLimits = defineProperty({
  id: 'attribute-limits',
  title: 'the most attributes, with the longest names and values up to the size limit, arrive intact',
  runs: { virtual: 30, real: 3 },
  build: (harness) =>
    fc.asyncProperty(caseArb, async ({ unit, spread, below, inBatch }) =>
      withSession(harness, async (session) => {
        const envelope = session.envelope('attributes-at-limit', { n: 1 });
        const bodyBytes = Buffer.byteLength(encodeEnvelope(prepareEnvelope(envelope)), 'utf8');
        const { maxBodyBytes, maxAttributeBytes } = session.caps;
        const room = Math.min(maxBodyBytes - bodyBytes, maxAttributeBytes ?? Number.POSITIVE_INFINITY);
        const attributes = attributesOfSize(room - below, unit, spread);
        const size = bodyBytes + byteSize(attributes);
        check(size <= maxBodyBytes, `the suite built a message of ${size} bytes`);
        if (maxAttributeBytes !== undefined) await expectAttributesRefused(session, maxAttributeBytes, unit);
        const companion = session.envelope('companion');
        if (inBatch) await session.queue.publishBatch([{ envelope: companion }, { envelope, attributes }]);
        else await session.queue.publish({ envelope, attributes });
        const got = await session.drain({ ack: true });
        const big = got.find((d) => d.envelope.event_id === envelope.event_id);
        check(big, `a message with ${MAX_ATTRIBUTES} attributes, ${size} bytes in all, was never delivered`);
        checkEqual({ ...big.attributes }, attributes, `attributes of a ${size}-byte message`);
        checkEqual(big.envelope.payload_sha256, prepareEnvelope(envelope).payload_sha256, 'digest');
        checkEqual(got.length, inBatch ? 2 : 1, 'messages delivered');
        await session.expectOnlySentinel(`after a message with attributes at the limits`);
      }),
    ),
});

/**
 * One byte past a declared attribute limit is refused with PAYLOAD_TOO_LARGE before anything is
 * sent: a provider that carries attributes in a header would otherwise fail the whole connection.
 */
async function expectAttributesRefused(session: Session, maxAttributeBytes: number, unit: string) {
  const envelope = session.envelope('attributes-past-limit');
  const attributes = attributesOfSize(maxAttributeBytes + 1, unit, 'one');
  const error = await session.queue.publish({ envelope, attributes }).then(
    () => undefined,
    (refusal: unknown) => refusal,
  );
  check(
    error instanceof QueueError && error.code === 'PAYLOAD_TOO_LARGE',
    `attributes of ${byteSize(attributes)} bytes, past maxAttributeBytes ${maxAttributeBytes}, were not refused with PAYLOAD_TOO_LARGE`,
  );
}

/** `MAX_ATTRIBUTES` attributes with 64-character names, whose names and values take `bytes` in all. */
function attributesOfSize(bytes: number, unit: string, spread: 'one' | 'even'): Record<string, string> {
  const names = Array.from({ length: MAX_ATTRIBUTES }, (_, i) => `a${i}`.padEnd(NAME_CHARS, 'n'));
  const valueBytes = Math.max(0, bytes - names.length * NAME_CHARS);
  const shares = names.map((_, i) =>
    spread === 'even'
      ? Math.floor(valueBytes / names.length) + (i < valueBytes % names.length ? 1 : 0)
      : i === 0
        ? valueBytes - (names.length - 1)
        : 1,
  );
  return Object.fromEntries(names.map((name, i) => [name, fill(unit, Math.max(0, shares[i]!))]));
}

/** `bytes` UTF-8 bytes of `unit`, topped up with ASCII where a wide unit does not fit. */
function fill(unit: string, bytes: number): string {
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const count = Math.floor(bytes / unitBytes);
  return unit.repeat(count) + 'a'.repeat(bytes - count * unitBytes);
}

function byteSize(attributes: Record<string, string>): number {
  let size = 0;
  for (const [name, value] of Object.entries(attributes)) size += Buffer.byteLength(name + value, 'utf8');
  return size;
}
