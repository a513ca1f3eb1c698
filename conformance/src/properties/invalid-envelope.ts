import type { EnvelopeInput } from '@queueport/core';
import fc from 'fast-check';
import { checkRejects, withSession } from '../support';
import { defineProperty } from './property';

type Mutation = (valid: Record<string, unknown>) => unknown;

/** Each way an application can hand over a broken envelope, named so a counterexample reads well. */
const MUTATIONS: Record<string, Mutation> = {
  'missing event_id': ({ event_id: _, ...rest }) => rest,
  'empty event_id': (e) => ({ ...e, event_id: '' }),
  'event_id with a control character': (e) => ({ ...e, event_id: `${e.event_id}\n` }),
  'event_id over 512 bytes': (e) => ({ ...e, event_id: 'é'.repeat(257) }),
  'wrong version': (e) => ({ ...e, v: 2 }),
  'version as a string': (e) => ({ ...e, v: '1' }),
  'missing type': ({ type: _, ...rest }) => rest,
  'occurred_at not RFC 3339': (e) => ({ ...e, occurred_at: 'yesterday' }),
  'both payload and payload_ref': (e) => ({
    ...e,
    payload_ref: { uri: 'https://store.example/p', sha256: 'a'.repeat(64) },
  }),
  'neither payload nor payload_ref': ({ payload: _, ...rest }) => rest,
  'payload digest mismatch': (e) => ({ ...e, payload_sha256: 'b'.repeat(64) }),
  'payload_ref digest malformed': ({ payload: _, ...rest }) => ({
    ...rest,
    payload_ref: { uri: 'https://store.example/p', sha256: 'XYZ' },
  }),
  'unknown field': (e) => ({ ...e, priority: 5 }),
  'NaN in payload': (e) => ({ ...e, payload: { amount: Number.NaN } }),
  'not an object': () => 'payment_8472:settled:v3',
  'null envelope': () => null,
};

export const invalidEnvelope = defineProperty({
  id: 'invalid-envelope',
  title: 'bad envelopes are refused with INVALID_ENVELOPE and nothing is enqueued, even alongside valid ones',
  runs: { virtual: 60, real: 6 },
  build: (harness) =>
    fc.asyncProperty(
      fc.record({ mutation: fc.constantFrom(...Object.keys(MUTATIONS)), inBatch: fc.boolean() }),
      async ({ mutation, inBatch }) =>
        withSession(harness, async (session) => {
          const valid = session.envelope('valid', { amount: 4200, currency: 'EUR' });
          const broken = MUTATIONS[mutation]!({ ...valid }) as EnvelopeInput;
          const publish = () =>
            inBatch
              ? session.queue.publishBatch([{ envelope: valid }, { envelope: broken }])
              : session.queue.publish({ envelope: broken });
          await checkRejects(publish, 'INVALID_ENVELOPE', `publishing an envelope with ${mutation}`);
          await session.expectOnlySentinel(`after an envelope with ${mutation} was refused`);
        }),
    ),
});
