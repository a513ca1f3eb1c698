import {
  encodeEnvelope,
  prepareEnvelope,
  Queue,
  QueueError,
  type StaleReceiptBehavior,
} from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { RecordingDriver } from './helpers/recording-driver';

const body = encodeEnvelope(prepareEnvelope({ event_id: 'evt_stale', type: 't', payload: 1 }));

function setup(staleReceipt: StaleReceiptBehavior) {
  const clock = new VirtualClock();
  const driver = new RecordingDriver({ capabilities: { staleReceipt } });
  const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
  let n = 0;
  const receiveOne = async (leaseSeconds = 30) => {
    driver.inbox.push({ receipt: `r-${n}`, messageId: `m-${n}`, body, attributes: {}, receiveCount: 1 });
    n++;
    const [delivery] = await queue.receive({ leaseSeconds });
    return delivery!;
  };
  return { clock, driver, queue, receiveOne };
}

describe("staleReceipt 'ignored': the Queue refuses settles past the lease it granted", () => {
  it('records the lease deadline on the delivery', async () => {
    const { clock, receiveOne } = setup('ignored');
    const start = clock.now();
    expect((await receiveOne(30)).leaseExpiresAt).toBe(start + 30_000);
  });

  it('refuses ack, release, extendLease and deadLetter at the deadline, without calling the driver', async () => {
    const { clock, driver, receiveOne } = setup('ignored');
    const delivery = await receiveOne(30);
    await clock.advance(30_000);
    await expect(delivery.ack()).rejects.toMatchObject({ code: 'LEASE_LOST', retryable: false });
    await expect(delivery.release({ delaySeconds: 5 })).rejects.toMatchObject({ code: 'LEASE_LOST' });
    await expect(delivery.extendLease(30)).rejects.toMatchObject({ code: 'LEASE_LOST' });
    await expect(delivery.deadLetter('poison')).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(driver.settleCalls).toEqual([]);
    expect(delivery.settled).toBe(false);
  });

  it('lets every settle through before the deadline', async () => {
    const { clock, driver, receiveOne } = setup('ignored');
    const first = await receiveOne(30);
    await clock.advance(29_999);
    await first.extendLease(30);
    await first.release({ delaySeconds: 5 });
    const second = await receiveOne(30);
    await clock.advance(29_999);
    await second.deadLetter('poison');
    const third = await receiveOne(30);
    await clock.advance(29_999);
    await third.ack();
    expect(driver.settleCalls.map((c) => c.operation)).toEqual([
      'extendLease',
      'release',
      'deadLetter',
      'ack',
    ]);
  });

  it('moves the deadline with a successful extension, from when the extension was asked', async () => {
    const { clock, driver, receiveOne } = setup('ignored');
    const delivery = await receiveOne(30);
    await clock.advance(20_000);
    const asked = clock.now();
    await delivery.extendLease(60);
    expect(delivery.leaseExpiresAt).toBe(asked + 60_000);
    // Past the original 30 s, inside the extended lease.
    await clock.advance(59_999);
    await delivery.ack();
    expect(driver.acks).toEqual([delivery.receipt]);
  });

  it('ends an extended lease too', async () => {
    const { clock, driver, receiveOne } = setup('ignored');
    const delivery = await receiveOne(30);
    await delivery.extendLease(60);
    await clock.advance(60_000);
    await expect(delivery.ack()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(driver.acks).toEqual([]);
  });

  it('keeps the deadline when the extension fails', async () => {
    const clock = new VirtualClock();
    const driver = new RecordingDriver({
      capabilities: { staleReceipt: 'ignored' },
      settleOutcome: (operation) =>
        operation === 'extendLease'
          ? { ok: false, error: new QueueError('LEASE_LOST', 'gone') }
          : { ok: true },
    });
    driver.inbox.push({ receipt: 'r', messageId: 'm', body, attributes: {}, receiveCount: 1 });
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    const deadline = delivery!.leaseExpiresAt;
    await expect(delivery!.extendLease(600)).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(delivery!.leaseExpiresAt).toBe(deadline);
  });

  it('refuses only the stale entries of a batch', async () => {
    const { clock, driver, queue, receiveOne } = setup('ignored');
    const old = await receiveOne(10);
    await clock.advance(10_000);
    const fresh = await receiveOne(10);
    const results = await queue.ackBatch([old, fresh]);
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'LEASE_LOST' } });
    expect(results[1]).toEqual({ ok: true });
    expect(driver.callsOf('ack')).toEqual([[fresh.receipt]]);
  });
});

describe("staleReceipt 'ignored' with the delay bridge", () => {
  // Known bug (reported): releaseBatch publishes the replacement hop before #settleMany refuses
  // the stale ack locally, so the message then exists twice. Flip to `it` once fixed.
  it('publishes no replacement hop for a stale release past the native delay', async () => {
    const clock = new VirtualClock();
    const driver = new RecordingDriver({
      capabilities: {
        staleReceipt: 'ignored',
        delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false },
      },
    });
    driver.inbox.push({ receipt: 'r', messageId: 'm', body, attributes: {}, receiveCount: 1 });
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    const [delivery] = await queue.receive({ leaseSeconds: 30 });
    await clock.advance(30_000);
    await expect(delivery!.release({ delaySeconds: 3_600 })).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(driver.publishCalls).toEqual([]);
  });
});

describe("staleReceipt 'rejected': the provider decides", () => {
  it('sends a settle past the deadline to the driver', async () => {
    const { clock, driver, receiveOne } = setup('rejected');
    const delivery = await receiveOne(30);
    await clock.advance(60_000);
    await delivery.ack();
    expect(driver.acks).toEqual([delivery.receipt]);
  });
});
