import { encodeEnvelope, prepareEnvelope, Queue, QueueError } from '@queueport/core';
import { assertCapabilities, RESERVED_ATTRIBUTE_BYTES } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { RecordingDriver, testCapabilities } from './helpers/recording-driver';

const envelope = { event_id: 'evt_limits', type: 't', payload: 1 };
const body = encodeEnvelope(prepareEnvelope(envelope));

function held(maxHoldSeconds: number, leaseMax = maxHoldSeconds) {
  const clock = new VirtualClock();
  const driver = new RecordingDriver({
    capabilities: { maxHoldSeconds, leaseSeconds: { min: 1, max: leaseMax } },
  });
  const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
  const receiveOne = async (leaseSeconds: number) => {
    driver.inbox.push({ receipt: 'r-0', messageId: 'm-0', body, attributes: {}, receiveCount: 1 });
    const [delivery] = await queue.receive({ leaseSeconds });
    return delivery!;
  };
  return { clock, driver, receiveOne };
}

async function refusal(work: Promise<unknown>): Promise<QueueError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QueueError);
  return error as QueueError;
}

describe('maxHoldSeconds: extensions end where the provider ends a hold', () => {
  it('refuses an extension that would end past the hold, without asking the driver', async () => {
    const { clock, driver, receiveOne } = held(600);
    const delivery = await receiveOne(300);
    await clock.advance(200_000);
    const error = await refusal(delivery.extendLease(401));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details).toMatchObject({ reason: 'max-hold', maxHoldSeconds: 600, remainingSeconds: 400 });
    expect(driver.extensions).toEqual([]);
  });

  it('grants an extension that ends exactly at the hold, and the ack after a refusal', async () => {
    const { clock, driver, receiveOne } = held(600);
    const delivery = await receiveOne(300);
    await clock.advance(200_000);
    await delivery.extendLease(400);
    expect(driver.extensions).toEqual([{ receipt: 'r-0', leaseSeconds: 400 }]);
    await clock.advance(1000);
    expect((await refusal(delivery.extendLease(400))).details.reason).toBe('max-hold');
    await delivery.ack();
    expect(driver.acks).toEqual(['r-0']);
  });

  it('counts the hold from the receive, however many extensions came between', async () => {
    const { clock, receiveOne } = held(1000, 300);
    const delivery = await receiveOne(300);
    for (let n = 0; n < 3; n++) {
      await clock.advance(200_000);
      await delivery.extendLease(300);
    }
    // 600 s since the receive: 400 s of hold remain, and a 300 s lease still fits.
    await clock.advance(200_000);
    await delivery.extendLease(200);
    expect((await refusal(delivery.extendLease(300))).details.remainingSeconds).toBe(200);
  });

  it('leaves a lease already run out to the stale-receipt path', async () => {
    const { clock, receiveOne } = held(600);
    const delivery = await receiveOne(300);
    await clock.advance(700_000);
    // The recording driver grants it; a real one answers LEASE_LOST. The hold is not the reason.
    await expect(delivery.extendLease(300)).resolves.toBeUndefined();
  });

  it('is refused in a manifest below the lease maximum', () => {
    expect(() =>
      assertCapabilities(testCapabilities({ maxHoldSeconds: 60, leaseSeconds: { min: 1, max: 120 } }), 'd'),
    ).toThrow(/maxHoldSeconds is below leaseSeconds.max/);
    expect(() => assertCapabilities(testCapabilities({ maxHoldSeconds: 0 }), 'd')).toThrow(/maxHoldSeconds/);
  });
});

describe('maxAttributeBytes: attributes bounded apart from the body', () => {
  const queueWith = (maxAttributeBytes: number) => {
    const driver = new RecordingDriver({ capabilities: { maxAttributeBytes } });
    return { driver, queue: new Queue(driver, { retry: { maxAttempts: 1 } }) };
  };

  it('refuses attributes one byte past the bound with PAYLOAD_TOO_LARGE, sending nothing', async () => {
    const { driver, queue } = queueWith(100);
    // 'k' plus 100 bytes of value: 101 bytes, names and values counted in UTF-8.
    const attributes = { k: 'é'.repeat(50) };
    const error = await refusal(
      queue.publishBatch([{ envelope: { ...envelope, event_id: 'ok' } }, { envelope, attributes }]),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toMatchObject({ field: 'attributes', attributeBytes: 101, maxAttributeBytes: 100 });
    expect(driver.publishCalls).toEqual([]);
  });

  it('carries attributes right at the bound', async () => {
    const { driver, queue } = queueWith(100);
    await queue.publish({ envelope, attributes: { k: 'a'.repeat(99) } });
    expect(driver.published[0]!.attributes).toEqual({ k: 'a'.repeat(99) });
  });

  it('is a whole number of bytes in a manifest, and leaves room for queueport’s own', () => {
    expect(() => assertCapabilities(testCapabilities({ maxAttributeBytes: 1.5 }), 'd')).toThrow(
      /maxAttributeBytes/,
    );
    // The trace context and the delay bridge's state fit in what is reserved.
    expect(RESERVED_ATTRIBUTE_BYTES).toBeGreaterThanOrEqual('queueport.trace'.length + 55 + 64);
  });
});
