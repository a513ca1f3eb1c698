import { type EnvelopeInput, encodeEnvelope, prepareEnvelope } from '@queueport/core';
import fc from 'fast-check';
import type { Session } from '../support';
import { check, checkEqual, checkRejects, show, withSession } from '../support';
import { UTF8_UNITS } from './arbitraries';
import { defineProperty } from './property';

const ATTRIBUTES = { tenant: 'zürich-Ω', trace: '00-4bf92f3577b34da6a3ce929d0e0e4736' };

/**
 * The property generates where to land relative to the limit, not the 256 KB payload itself, so
 * a failure prints a counterexample a person can read.
 */
const caseArb = fc.record({
  unit: fc.constantFrom(...UTF8_UNITS),
  delta: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -4, max: 4 }) },
    fc.integer({ min: -100_000, max: 100_000 }),
  ),
  withAttributes: fc.boolean(),
  inBatch: fc.boolean(),
});

/**
 * The contract's definition of a message's size, written here rather than taken from the Queue,
 * so a Queue that counts wrong cannot agree with itself: UTF-8 bytes of the encoded envelope plus
 * those of every attribute name and value.
 */
function contractSize(body: string, attributes: Record<string, string>): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) size += Buffer.byteLength(name + value, 'utf8');
  return size;
}

/** An envelope whose encoded size (plus attributes) is `target` bytes, filled with `unit`. */
function envelopeOfSize(session: Session, unit: string, target: number, attributes: Record<string, string>) {
  const sizeOf = (envelope: EnvelopeInput) =>
    contractSize(encodeEnvelope(prepareEnvelope(envelope)), attributes);
  const fill = Math.max(0, target - sizeOf(session.envelope('big', { data: '' })));
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const count = Math.floor(fill / unitBytes);
  const data = unit.repeat(count) + 'a'.repeat(fill - count * unitBytes);
  const envelope = session.envelope('big', { data });
  return { envelope, size: sizeOf(envelope) };
}

export const sizeLimit = defineProperty({
  id: 'size-limit',
  title:
    'publish succeeds exactly when the encoded message fits the limit; over it, PAYLOAD_TOO_LARGE and nothing enqueued',
  runs: { virtual: 60, real: 6 },
  build: (harness) =>
    fc.asyncProperty(caseArb, async ({ unit, delta, withAttributes, inBatch }) =>
      withSession(harness, async (session) => {
        const limit = session.caps.maxBodyBytes;
        const attributes = withAttributes ? ATTRIBUTES : {};
        const { envelope, size } = envelopeOfSize(session, unit, limit + delta, attributes);
        const companion = session.envelope('companion');
        const publish = () =>
          inBatch
            ? session.queue.publishBatch([{ envelope: companion }, { envelope, attributes }])
            : session.queue.publish({ envelope, attributes });
        if (size > limit) {
          const error = await checkRejects(
            publish,
            'PAYLOAD_TOO_LARGE',
            `publishing ${size} bytes against a ${limit}-byte limit`,
          );
          // Documented details: what a caller logs or uses to split the payload. A payload
          // refused while it was still being read has a lower bound (`atLeast`) past the limit.
          const { sizeBytes, maxBodyBytes, atLeast } = error.details;
          checkEqual(maxBodyBytes, limit, 'details.maxBodyBytes of PAYLOAD_TOO_LARGE');
          check(
            atLeast === true
              ? typeof sizeBytes === 'number' && sizeBytes > limit && sizeBytes <= size
              : sizeBytes === size,
            `details.sizeBytes of PAYLOAD_TOO_LARGE for ${size} bytes: ${show(error.details)}`,
          );
          await session.expectOnlySentinel(`after a rejected ${size}-byte publish`);
          return;
        }
        await publish();
        const got = await session.drain({ ack: true });
        const big = got.find((d) => d.envelope.event_id === envelope.event_id);
        check(big, `a ${size}-byte message (limit ${limit}) was accepted but never delivered`);
        checkEqual(
          big.envelope.payload_sha256,
          prepareEnvelope(envelope).payload_sha256,
          `digest of the ${size}-byte payload`,
        );
        checkEqual(got.length, inBatch ? 2 : 1, 'messages delivered');
      }),
    ),
});
