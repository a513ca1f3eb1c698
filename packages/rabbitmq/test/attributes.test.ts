import { AdapterRegistry, type QueueError } from '@queueport/core';
import { afterAll, expect, it } from 'vitest';
import { MAX_ATTRIBUTE_BYTES, type RabbitmqDriver, rabbitmqAdapter } from '../src';
import { providerUrl, queuesPerFile } from './support/rabbitmq';

const registry = new AdapterRegistry([rabbitmqAdapter]);
const queues = queuesPerFile('attrs');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it('refuses a 150 KB attribute with a typed error before sending, and the connection goes on working', async () => {
  const admin = await registry.openAdmin(providerUrl());
  cleanups.push(() => admin.close());
  const url = await admin.createQueue({ name: queues.next() });
  const driver = (await rabbitmqAdapter.open(new URL(url), {})) as RabbitmqDriver;
  cleanups.push(() => driver.close());
  const huge = { big: 'x'.repeat(150_000) };
  const base = { eventId: 'e', dedupeKey: 'e', body: '{}', delaySeconds: 0 };
  // The driver itself refuses, whatever the Queue checked: a header past a frame closes the connection.
  const [refused, fine] = await driver.publish([
    { ...base, attributes: huge },
    { ...base, attributes: { small: 'y' } },
  ]);
  expect(refused).toMatchObject({
    ok: false,
    error: {
      code: 'PAYLOAD_TOO_LARGE',
      details: { field: 'attributes', maxAttributeBytes: MAX_ATTRIBUTE_BYTES },
    },
  });
  expect(fine).toMatchObject({ ok: true });
  const [delivery, ...rest] = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 2 });
  expect(rest).toEqual([]);
  expect(delivery?.attributes).toEqual({ small: 'y' });
  expect(await driver.ack([delivery!.receipt])).toEqual([{ ok: true }]);

  // Through the Queue the manifest's limit refuses it first, with the same code.
  const queue = await registry.openQueue(url);
  cleanups.push(() => queue.close());
  const error = await queue
    .publish({ envelope: { event_id: 'big', type: 't', payload: {} }, attributes: huge })
    .catch((caught: unknown) => caught as QueueError);
  expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { field: 'attributes' } });
  await queue.publish({ envelope: { event_id: 'after', type: 't', payload: {} } });
  const [after] = await queue.receive({ maxMessages: 1, waitSeconds: 2 });
  expect(after?.envelope.event_id).toBe('after');
  await after!.ack();
});
