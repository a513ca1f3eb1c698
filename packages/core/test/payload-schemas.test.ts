import {
  type AnyQueue,
  type EnvelopeOf,
  encodeEnvelope,
  prepareEnvelope,
  Queue,
  type QueueError,
} from '@queueport/core';
import type { DriverMessage } from '@queueport/core/driver';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { rejection } from './helpers/queue-errors';
import { RecordingDriver } from './helpers/recording-driver';

const orderPaid = z.object({ amount: z.number().int().positive(), currency: z.string().length(3) });
const refundIssued = v.object({ order_id: v.string(), lines: v.array(v.object({ sku: v.string() })) });
const schemas = { 'order.paid': orderPaid, 'refund.issued': refundIssued };

/** The QueueError a call rejects with, checked to carry `code`. */
async function refused(promise: Promise<unknown>, code: string): Promise<QueueError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  return error;
}

function typedQueue(driver = new RecordingDriver()) {
  return new Queue(driver, { payloadSchemas: schemas });
}

function message(n: number, type: string, payload: unknown): DriverMessage {
  const body = encodeEnvelope(prepareEnvelope({ event_id: `evt-${n}`, type, payload: payload as never }));
  return { receipt: `r-${n}`, messageId: `m-${n}`, body, attributes: {}, receiveCount: 1 };
}

describe('typed payloads', () => {
  it('types the queue from its schemas: the type narrows the payload', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(message(1, 'order.paid', { amount: 1200, currency: 'EUR' }));
    const [delivery] = await typedQueue(driver).receive();
    const envelope = delivery!.envelope;
    expectTypeOf(envelope.type).toEqualTypeOf<'order.paid' | 'refund.issued'>();
    if (envelope.type === 'order.paid' && envelope.payload !== undefined) {
      expectTypeOf(envelope.payload).toEqualTypeOf<{ amount: number; currency: string }>();
      expect(envelope.payload.amount).toBe(1200);
    } else {
      throw new Error('expected an inline order.paid');
    }
  });

  it('refuses a wrong payload at compile time and takes a right one', async () => {
    const driver = new RecordingDriver();
    const queue = typedQueue(driver);
    // Checked by \`pnpm typecheck\` (an unused directive is an error there); never called.
    const refusedByTheCompiler = (): void => {
      const wrongPayload = {
        event_id: 'e',
        type: 'order.paid',
        payload: { amount: '1', currency: 'EUR' },
      } as const;
      // @ts-expect-error amount must be a number
      void queue.publish({ envelope: wrongPayload });
      const unknownType = { event_id: 'e', type: 'order.cancelled', payload: {} } as const;
      // @ts-expect-error not one of the queue's event types
      void queue.publish({ envelope: unknownType });
    };
    void refusedByTheCompiler;
    const rightPayload = {
      event_id: 'e',
      type: 'order.paid',
      payload: { amount: 1, currency: 'EUR' },
    } as const;
    await queue.publish({ envelope: rightPayload });
    expect(driver.published.map((m) => JSON.parse(m.body).payload)).toEqual([rightPayload.payload]);
  });

  it('takes an explicit event map without schemas, and keeps an untyped queue plain', () => {
    type Events = { 'order.paid': { amount: number } };
    expectTypeOf<EnvelopeOf<Events>['type']>().toEqualTypeOf<'order.paid'>();
    const untyped = new Queue(new RecordingDriver());
    expectTypeOf(untyped).toEqualTypeOf<Queue>();
    // What code that never reads payloads takes (the webhook worker): any typed queue fits.
    const forWorker: AnyQueue = typedQueue();
    expect(forWorker).toBeInstanceOf(Queue);
  });
});

describe('payload checks on publish', () => {
  it('refuses an invalid payload with the path of the field, and enqueues nothing', async () => {
    const driver = new RecordingDriver();
    const error = await refused(
      typedQueue(driver).publish({
        envelope: { event_id: 'evt-1', type: 'order.paid', payload: { amount: -5, currency: 'EUR' } },
      }),
      'INVALID_ENVELOPE',
    );
    expect(error.message).toContain('envelope.payload.amount');
    expect(error.details).toMatchObject({
      event_id: 'evt-1',
      type: 'order.paid',
      field: 'envelope.payload.amount',
      index: 0,
    });
    expect(driver.published).toEqual([]);
  });

  it('refuses a whole batch for one bad entry, naming it, and enqueues none of it', async () => {
    const driver = new RecordingDriver();
    const good = { event_id: 'evt-1', type: 'order.paid' as const, payload: { amount: 5, currency: 'EUR' } };
    const bad = {
      event_id: 'evt-2',
      type: 'refund.issued' as const,
      payload: { order_id: 'o', lines: [{ sku: 7 }] },
    };
    const error = await refused(
      typedQueue(driver).publishBatch([{ envelope: good }, { envelope: bad as never }]),
      'INVALID_ENVELOPE',
    );
    expect(error.details).toMatchObject({
      event_id: 'evt-2',
      index: 1,
      field: 'envelope.payload.lines[0].sku',
    });
    expect(driver.published).toEqual([]);
  });

  it('refuses a type with no schema on a queue that declares schemas', async () => {
    const driver = new RecordingDriver();
    const error = await refused(
      typedQueue(driver).publish({
        envelope: { event_id: 'evt-1', type: 'order.cancelled', payload: {} } as never,
      }),
      'INVALID_ENVELOPE',
    );
    expect(error.details).toMatchObject({ field: 'envelope.type', type: 'order.cancelled' });
    expect(driver.published).toEqual([]);
  });

  it('publishes a valid payload exactly as given, not the schema output', async () => {
    const driver = new RecordingDriver();
    const trimming = z.object({ name: z.string().transform((s) => s.trim()) });
    const queue = new Queue(driver, { payloadSchemas: { 'user.renamed': trimming } });
    await queue.publish({
      envelope: { event_id: 'evt-1', type: 'user.renamed', payload: { name: ' Ada ' } },
    });
    expect(JSON.parse(driver.published[0]!.body).payload).toEqual({ name: ' Ada ' });
  });

  it('checks only the type of a payload carried by reference', async () => {
    const driver = new RecordingDriver();
    await typedQueue(driver).publish({
      envelope: {
        event_id: 'evt-1',
        type: 'order.paid',
        payload_ref: { uri: 'app://orders/1', sha256: 'a'.repeat(64) },
        payload_sha256: 'a'.repeat(64),
      },
    });
    expect(driver.published).toHaveLength(1);
  });

  it('awaits an asynchronous schema', async () => {
    const driver = new RecordingDriver();
    const later: StandardSchemaV1<unknown, { ok: true }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value) =>
          (value as { ok?: unknown }).ok === true
            ? { value: value as { ok: true } }
            : { issues: [{ message: 'not ok', path: ['ok'] }] },
      },
    };
    const queue = new Queue(driver, { payloadSchemas: { check: later } });
    await queue.publish({ envelope: { event_id: 'evt-1', type: 'check', payload: { ok: true } } });
    const error = await refused(
      queue.publish({ envelope: { event_id: 'evt-2', type: 'check', payload: { ok: false } as never } }),
      'INVALID_ENVELOPE',
    );
    expect(error.message).toBe('payload of "check" is invalid at envelope.payload.ok: not ok');
    expect(driver.published).toHaveLength(1);
  });

  it('refuses schemas that are not Standard Schemas when the queue is made', () => {
    expect(
      () => new Queue(new RecordingDriver(), { payloadSchemas: { x: { parse() {} } } as never }),
    ).toThrow(/payloadSchemas\["x"\] is not a Standard Schema/);
    expect(() => new Queue(new RecordingDriver(), { payloadSchemas: [] as never })).toThrow(/payloadSchemas/);
  });
});

describe('payload checks on receive', () => {
  it('dead-letters an invalid payload with the reason and never hands it out', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(
      message(1, 'order.paid', { amount: 'lots', currency: 'EUR' }),
      message(2, 'order.paid', { amount: 7, currency: 'EUR' }),
      message(3, 'order.cancelled', {}),
    );
    const invalid: QueueError[] = [];
    const queue = new Queue(driver, {
      payloadSchemas: schemas,
      hooks: { onInvalidMessage: ({ error }) => invalid.push(error) },
    });
    const deliveries = await queue.receive({ maxMessages: 3 });
    expect(deliveries.map((d) => d.envelope.event_id)).toEqual(['evt-2']);
    expect(driver.deadLettered.map((d) => d.receipt)).toEqual(['r-1', 'r-3']);
    expect(driver.deadLettered[0]!.reason).toContain('envelope.payload.amount');
    expect(driver.deadLettered[1]!.reason).toContain('"order.cancelled" has no payload schema');
    expect(invalid.map((e) => e.details.field)).toEqual(['envelope.payload.amount', 'envelope.type']);
  });

  it('never hands an invalid payload to a consumer handler', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(
      message(1, 'order.paid', { amount: 0, currency: 'EUR' }),
      message(2, 'order.paid', { amount: 3, currency: 'USD' }),
    );
    const queue = typedQueue(driver);
    const seen: string[] = [];
    const consumer = queue.consume(async (delivery) => {
      seen.push(delivery.envelope.event_id);
      await delivery.ack();
    });
    while (driver.acks.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await consumer.close();
    expect(seen).toEqual(['evt-2']);
    expect(driver.deadLettered.map((d) => d.receipt)).toEqual(['r-1']);
  });
});
