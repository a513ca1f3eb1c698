/**
 * The envelopes the PostgreSQL and RabbitMQ pairs publish on both sides (about 1 KB each once
 * encoded), and their sending in chunks as large as an adapter's publish batch.
 */
import { type EnvelopeInput, encodeEnvelope, prepareEnvelope, type Queue } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { outgoingMessages } from './fixtures';

/** Bytes of one encoded envelope, give or take the digits of its index. */
const BODY_BYTES = 1024;

function envelope(label: string, i: number, note: string): EnvelopeInput {
  return {
    event_id: `bench_${label}_${i}`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR', note },
  };
}

/** The note that makes an envelope's encoded body about BODY_BYTES long. */
const NOTE = (() => {
  const bare = Buffer.byteLength(encodeEnvelope(prepareEnvelope(envelope('probe', 0, ''))));
  return 'x'.repeat(Math.max(0, BODY_BYTES - bare));
})();

/** The bullmq pairs' envelopes with a longer note: about 1 KB each once encoded. */
export function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => envelope(label, i, NOTE));
}

/** What the Queue hands the driver for these inputs: the bare side sends the same bodies and keys. */
export function encoded(label: string, count: number): OutgoingMessage[] {
  return outgoingMessages(inputs(label, count));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `work` over every chunk of `size`, `inFlight` at a time (1: one after another, as the timed publishes go). */
export async function eachChunk<T>(
  items: readonly T[],
  size: number,
  inFlight: number,
  work: (chunk: T[]) => Promise<unknown>,
): Promise<number> {
  const pending = chunks(items, size);
  await Promise.all(
    Array.from({ length: Math.min(inFlight, pending.length) }, async () => {
      for (let chunk = pending.shift(); chunk; chunk = pending.shift()) await work(chunk);
    }),
  );
  return items.length;
}

/** The same envelopes through the portable Queue, in publishBatch calls as large as the adapter's batch. */
export function publishThroughQueue(label: string, count: number, size: number) {
  const envelopes = inputs(label, count).map((envelope) => ({ envelope }));
  return (queue: Queue, inFlight = 1) =>
    eachChunk(envelopes, size, inFlight, (chunk) => queue.publishBatch(chunk));
}
