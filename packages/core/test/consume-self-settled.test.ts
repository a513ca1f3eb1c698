import { Queue } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

describe('a handler that settles its own delivery', () => {
  it('is left alone: the consumer neither acks nor releases it again', async () => {
    const driver = new FakeDriver();
    const queue = new Queue(driver);
    await queue.publish(event('self-settled'));
    const seen: boolean[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        await delivery.release({ delaySeconds: 600 });
        seen.push(delivery.settled);
      },
      { waitSeconds: 0.05 },
    );
    for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await consumer.close();
    expect(seen).toEqual([true]);
    // Released for 10 minutes, not acked: still held by the driver, and no LEASE_LOST from a second
    // settle. The stats count the handler's own release, as what happened to the message.
    expect(driver.depth()).toBe(1);
    expect(consumer.stats).toMatchObject({ acked: 0, released: 1, errors: 0 });
    await queue.close();
  });
});
