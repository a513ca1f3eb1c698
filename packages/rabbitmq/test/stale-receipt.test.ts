import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterRegistry } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { afterAll, expect, it } from 'vitest';
import { rabbitmqAdapter } from '../src';
import { closeConnections, providerUrl, queuesPerFile } from './support/rabbitmq';

const registry = new AdapterRegistry([rabbitmqAdapter]);
const queues = queuesPerFile('stale');
const opened: Driver[] = [];
afterAll(async () => {
  await Promise.all(opened.map((driver) => driver.close()));
});

async function queueUrl(): Promise<string> {
  const admin = await registry.openAdmin(providerUrl());
  try {
    return await admin.createQueue({ name: queues.next(), redriveAfterReceives: 5 });
  } finally {
    await admin.close();
  }
}

async function driverOn(url: string): Promise<Driver> {
  const driver = await rabbitmqAdapter.open(new URL(url), {});
  opened.push(driver);
  return driver;
}

const message = (eventId: string) => ({
  eventId,
  dedupeKey: eventId,
  body: `{"e":"${eventId}"}`,
  attributes: { tenant: 'a' },
  delaySeconds: 0,
});

const receive = (driver: Driver, leaseSeconds = 30) =>
  driver.receive({ maxMessages: 10, leaseSeconds, waitSeconds: 2 });

it('refuses every settle of a receipt whose lease ran out, and leaves the new holder’s lease alone', async () => {
  const first = await driverOn(await queueUrl());
  await first.publish([message('e1')]);
  const [old] = await first.receive({ maxMessages: 1, leaseSeconds: 1, waitSeconds: 2 });
  await sleep(1_300);
  const [fresh] = await receive(first);
  expect(fresh).toMatchObject({ messageId: old!.messageId, receiveCount: 2 });

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
  // A forged receipt (a delivery tag the channel may not hold) never reaches the broker, which
  // would close the channel: the live lease below still acks.
  expect(await first.ack(['1.1.forged', 'not-a-receipt'])).toMatchObject([{ ok: false }, { ok: false }]);
  expect(await first.ack([fresh!.receipt, fresh!.receipt])).toMatchObject([{ ok: true }, { ok: false }]);
  expect(await first.receive({ maxMessages: 1, leaseSeconds: 1, waitSeconds: 0 })).toEqual([]);
});

it('makes receipts from before a dropped connection stale, and the message comes back counted once more', async () => {
  const driver = await driverOn(await queueUrl());
  await driver.publish([message('d1')]);
  const [held] = await receive(driver, 300);
  expect(await closeConnections(driver)).toBeGreaterThan(0);
  const [back] = await receive(driver);
  expect(back).toMatchObject({ messageId: held!.messageId, receiveCount: 2 });
  expect(await driver.ack([held!.receipt])).toMatchObject([{ ok: false, error: { code: 'LEASE_LOST' } }]);
  // The stale ack touched nothing: the new channel's lease still acks.
  expect(await driver.ack([back!.receipt])).toEqual([{ ok: true }]);
});

it('answers an aborted receive at once, and gives back what it took, its receive uncounted', async () => {
  const driver = await driverOn(await queueUrl());
  await driver.publish([message('a1'), message('a2')]);
  const abort = new AbortController();
  const receiving = driver.receive({
    maxMessages: 2,
    leaseSeconds: 300,
    waitSeconds: 5,
    signal: abort.signal,
  });
  abort.abort('stop');
  expect(await receiving).toEqual([]);
  let back: Awaited<ReturnType<Driver['receive']>> = [];
  for (let i = 0; i < 50 && back.length < 2; i++) {
    back = [...back, ...(await driver.receive({ maxMessages: 2, leaseSeconds: 30, waitSeconds: 0 }))];
    if (back.length < 2) await sleep(100);
  }
  expect(back.map((m) => m.receiveCount)).toEqual([1, 1]);
  expect(back.map((m) => m.attributes)).toEqual([{ tenant: 'a' }, { tenant: 'a' }]);
});

it('a delayed release comes back with its count carried, and past the redrive goes to the dead letters', async () => {
  const url = await queueUrl();
  const driver = await driverOn(url);
  await driver.publish([message('r1')]);
  let count = 0;
  for (let round = 1; round <= 5; round++) {
    const [got] = await receive(driver);
    expect(got?.receiveCount).toBe(round);
    count = got!.receiveCount;
    // Every other release goes through a delay queue, whose copy the broker counts from zero.
    expect(await driver.release([{ receipt: got!.receipt, delaySeconds: round % 2 }])).toEqual([
      { ok: true },
    ]);
    if (round % 2) await sleep(1_200);
  }
  expect(count).toBe(5);
  await sleep(1_200);
  expect(await receive(driver)).toEqual([]);
  const admin = await registry.openAdmin(providerUrl());
  try {
    const [dead] = await admin.listDeadLetters!(url, { limit: 10 });
    expect(dead).toMatchObject({ body: '{"e":"r1"}', receiveCount: 6, reason: 'received 6 times' });
    expect(await admin.stats(url)).toMatchObject({ deadLetters: 1 });
  } finally {
    await admin.close();
  }
});
