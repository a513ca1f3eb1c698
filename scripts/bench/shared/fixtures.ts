/** The events every delivery scenario sends, so both sides of a pair carry the same bytes. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Envelope, type EnvelopeInput, encodeEnvelope, prepareEnvelope } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import type { ReferenceReceiver } from '@queueport/webhook/reference-receiver';

export function envelopes(label: string, count: number): Envelope[] {
  return Array.from({ length: count }, (_, i) =>
    prepareEnvelope({
      event_id: `bench_${label}_${i}:settled:v1`,
      type: 'payment.settled',
      payload: { i, amount: 4200 },
    }),
  );
}

/**
 * What the Queue hands a driver for these inputs: validated and encoded ahead, so a pair that
 * times a bare driver does not time the Queue's work.
 */
export function outgoingMessages(inputs: readonly EnvelopeInput[]): OutgoingMessage[] {
  return inputs.map((input) => {
    const envelope = prepareEnvelope(input);
    return {
      eventId: envelope.event_id,
      dedupeKey: envelope.event_id,
      body: encodeEnvelope(envelope),
      attributes: {},
      delaySeconds: 0,
    };
  });
}

export interface EncodedEvent {
  id: string;
  digest: string;
  body: string;
}

/** Encoded ahead of time: encoding is the pipeline's work, and a raw loop would not do it. */
export function encodedEvents(label: string, count: number): EncodedEvent[] {
  return envelopes(label, count).map((envelope) => ({
    id: envelope.event_id,
    digest: envelope.payload_sha256,
    body: encodeEnvelope(envelope),
  }));
}

/** A side is done when the receiver has recorded every effect, not when the sender thinks so. */
export async function waitForEffects(receiver: ReferenceReceiver, count: number): Promise<void> {
  while (receiver.effectTotal() < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `queueport-bench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `step` over `items` from `concurrency` loops that each take the next unclaimed item. */
export async function concurrently<T>(
  items: readonly T[],
  concurrency: number,
  step: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < items.length; i = next++) await step(items[i]!);
    }),
  );
}
