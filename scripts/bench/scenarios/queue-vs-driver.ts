import { type EnvelopeInput, Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { type PairScenario, timed } from '../runner';
import { subjectQueueOptions } from '../shared/bench-telemetry';
import { outgoingMessages } from '../shared/fixtures';

const BATCH = 10;

function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `bench_${label}_${i}:settled:v1`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR' },
  }));
}

export const queueVsDriver: PairScenario = {
  kind: 'pair',
  otel: 'subject',
  name: 'queue-vs-driver',
  description:
    "The portable Queue's own cost (validation, canonical encoding and digest, manifest checks, decoding on receive) over the memory driver, beside the same messages through the bare driver.",
  subject: `Queue.publishBatch in tens, then receive ${BATCH} at a time + ackBatch (memory driver)`,
  baseline: 'the same bodies, encoded ahead, through driver.publish / receive / ack directly',
  targets: [{ metric: 'ratio', atLeast: 0.5 }],
  remains:
    'the portable layer’s proof of each message both ways: on publish, envelope validation, canonical JSON and its SHA-256; on receive, JSON.parse, the schema check and the digest, against a driver whose own work is a few array operations.',
  async open({ quick }) {
    const messages = quick ? 2000 : 50_000;
    return {
      detail: `${messages} messages per round`,
      subject: async (label) => {
        const queue = new Queue(new MemoryDriver(), subjectQueueOptions());
        const all = inputs(label, messages);
        try {
          return await timed(async () => {
            for (let i = 0; i < all.length; i += BATCH) {
              await queue.publishBatch(all.slice(i, i + BATCH).map((envelope) => ({ envelope })));
            }
            for (let received = 0; received < messages; ) {
              const batch = await queue.receive({ maxMessages: BATCH, leaseSeconds: 60 });
              await queue.ackBatch(batch);
              received += batch.length;
            }
            return messages;
          });
        } finally {
          await queue.close();
        }
      },
      baseline: async (label) => {
        const driver = new MemoryDriver();
        // Encoding is the Queue's work, not the driver's, so the bare side gets it done ahead.
        const bodies = outgoingMessages(inputs(label, messages));
        try {
          return await timed(async () => {
            for (let i = 0; i < bodies.length; i += BATCH) await driver.publish(bodies.slice(i, i + BATCH));
            for (let received = 0; received < messages; ) {
              const batch = await driver.receive({ maxMessages: BATCH, leaseSeconds: 60, waitSeconds: 0 });
              await driver.ack(batch.map((m) => m.receipt));
              received += batch.length;
            }
            return messages;
          });
        } finally {
          await driver.close();
        }
      },
      close: async () => undefined,
    };
  },
};
