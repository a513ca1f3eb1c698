import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterRegistry } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { afterAll, expect, it } from 'vitest';
import { postgresQueueAdapter } from '../src';
import { schemasPerFile, withClient } from './support/postgres';

const schemas = schemasPerFile('stale');
const registry = new AdapterRegistry([postgresQueueAdapter]);
const { schema, providerUrl } = schemas.next();
const opened: Driver[] = [];
afterAll(async () => {
  await Promise.all(opened.map((driver) => driver.close()));
});

async function driverOn(url: string): Promise<Driver> {
  const driver = await postgresQueueAdapter.open(new URL(url), {});
  opened.push(driver);
  return driver;
}

const message = (eventId: string) => ({
  eventId,
  dedupeKey: eventId,
  body: `{"e":"${eventId}"}`,
  attributes: {},
  delaySeconds: 0,
});

it('refuses every settle of a receipt whose lease another receiver took, and leaves that lease alone', async () => {
  const admin = await registry.openAdmin(providerUrl);
  const url = await admin.createQueue({ name: 'stale' });
  await admin.close();
  const [first, second] = [await driverOn(url), await driverOn(url)];
  await first.publish([message('e1')]);
  const [old] = await first.receive({ maxMessages: 1, leaseSeconds: 1, waitSeconds: 0 });
  await sleep(1_300);
  const [fresh] = await second.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
  expect(fresh).toMatchObject({ messageId: old!.messageId, receiveCount: 2 });

  // Every settle with the old receipt is refused by the database itself.
  expect(await first.ack([old!.receipt])).toMatchObject([{ ok: false, error: { code: 'LEASE_LOST' } }]);
  expect(await first.release([{ receipt: old!.receipt, delaySeconds: 0 }])).toMatchObject([
    { ok: false, error: { code: 'LEASE_LOST' } },
  ]);
  expect(await first.extendLease!([{ receipt: old!.receipt, leaseSeconds: 60 }])).toMatchObject([
    { ok: false, error: { code: 'LEASE_LOST' } },
  ]);
  expect(await first.deadLetter!([{ receipt: old!.receipt, reason: 'x' }])).toMatchObject([
    { ok: false, error: { code: 'LEASE_LOST' } },
  ]);
  // A forged token on the right id, and text that is no receipt at all, fare no better.
  const forged = `${old!.messageId}.00000000-0000-4000-8000-000000000000`;
  expect(await first.ack([forged, 'not-a-receipt'])).toMatchObject([{ ok: false }, { ok: false }]);

  // The second receiver's lease is untouched: still hidden, still its own, and its ack works.
  const row = await withClient((client) =>
    client.query(
      `SELECT visible_at > now() AS hidden, receive_count FROM "${schema}".messages WHERE id = $1`,
      [old!.messageId],
    ),
  );
  expect(row.rows[0]).toEqual({ hidden: true, receive_count: 2 });
  expect(await second.ack([fresh!.receipt, fresh!.receipt])).toMatchObject([{ ok: true }, { ok: false }]);
  expect(await second.receive({ maxMessages: 1, leaseSeconds: 1, waitSeconds: 0 })).toEqual([]);
});

it('reports a repeat within the window as a duplicate of the first message, also within one batch', async () => {
  const admin = await registry.openAdmin(providerUrl);
  const url = await admin.createQueue({ name: 'dupes' });
  await admin.close();
  const driver = await driverOn(url);
  const [a, b] = await driver.publish([message('d1'), message('d1')]);
  expect(a).toMatchObject({ ok: true, duplicate: false });
  expect(b).toEqual({ ok: true, duplicate: true, messageId: (a as { messageId: string }).messageId });
  expect(await driver.publish([message('d1')])).toEqual([b]);
});

it('answers an aborted receive at once, and gives back what its statement took, its receive uncounted', async () => {
  const admin = await registry.openAdmin(providerUrl);
  const url = await admin.createQueue({ name: 'abandoned' });
  await admin.close();
  const driver = await driverOn(url);
  await driver.publish([message('a1'), message('a2')]);
  const abort = new AbortController();
  // The statement is under way when the abort comes: the receive started it synchronously.
  const receiving = driver.receive({
    maxMessages: 2,
    leaseSeconds: 300,
    waitSeconds: 5,
    signal: abort.signal,
  });
  abort.abort('stop');
  expect(await receiving).toEqual([]);
  // Nothing stays leased for 300 s by a receive nobody saw, and its receive is not counted.
  let back: Awaited<ReturnType<Driver['receive']>> = [];
  for (let i = 0; i < 50 && back.length < 2; i++) {
    back = [...back, ...(await driver.receive({ maxMessages: 2, leaseSeconds: 30, waitSeconds: 0 }))];
    if (back.length < 2) await sleep(100);
  }
  expect(back.map((m) => m.receiveCount)).toEqual([1, 1]);
});
