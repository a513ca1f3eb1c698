import { type EnvelopeInput, encodeEnvelope, prepareEnvelope } from '@queueport/core';
import fc from 'fast-check';
import { check, checkEqual, withSession } from '../support';
import { attributesArb, eventSuffixArb, payloadArb } from './arbitraries';
import { defineProperty } from './property';

const messageArb = fc.record({
  suffix: eventSuffixArb,
  type: fc.constantFrom('payment.settled', 'ticket.opened', 'x'),
  payload: fc.option(payloadArb, { nil: undefined }),
  attributes: attributesArb,
  occurredAt: fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  refDigest: fc.stringMatching(/^[0-9a-f]{64}$/),
});

export const roundTrip = defineProperty({
  id: 'round-trip',
  title: 'what is published is received unchanged, envelope and attributes included',
  build: (harness) =>
    fc.asyncProperty(
      fc.uniqueArray(messageArb, { minLength: 1, maxLength: 4, selector: (m) => m.suffix }),
      async (messages) =>
        withSession(harness, async (session) => {
          const expected = new Map<string, { body: string; attributes: Record<string, string> }>();
          const inputs = messages.map((m) => {
            const base = { event_id: session.eventId(m.suffix), type: m.type, occurred_at: m.occurredAt };
            const envelope: EnvelopeInput =
              m.payload === undefined
                ? {
                    ...base,
                    payload_ref: {
                      uri: `https://store.example/${encodeURIComponent(m.suffix)}`,
                      sha256: m.refDigest,
                    },
                  }
                : { ...base, payload: m.payload };
            expected.set(envelope.event_id, {
              body: encodeEnvelope(prepareEnvelope(envelope)),
              attributes: m.attributes,
            });
            return { envelope, attributes: m.attributes };
          });
          await session.queue.publishBatch(inputs);
          const got = await session.drain({ ack: true });
          checkEqual(
            got.map((d) => d.envelope.event_id).sort(),
            [...expected.keys()].sort(),
            'event ids received once each',
          );
          for (const delivery of got) {
            const want = expected.get(delivery.envelope.event_id)!;
            checkEqual(encodeEnvelope(delivery.envelope), want.body, 'envelope as received');
            checkEqual({ ...delivery.attributes }, want.attributes, 'attributes as received');
            check(delivery.messageId.length > 0, 'a delivery carries a message id');
            if (session.caps.receiveCount)
              checkEqual(delivery.receiveCount, 1, 'receive count of a first delivery');
          }
        }),
    ),
});
