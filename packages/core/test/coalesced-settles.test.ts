import { type Delivery, Queue, QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { batchOf, fillInbox, RecordingDriver, type RecordingDriverOptions } from './helpers/recording-driver';

const fastRetry = { retry: { baseMs: 0, maxMs: 0, maxAttempts: 4 } };

async function received(count: number, options: RecordingDriverOptions = {}) {
  const driver = new RecordingDriver(options);
  fillInbox(driver, count);
  const queue = new Queue(driver, fastRetry);
  const deliveries: Delivery[] = [];
  while (deliveries.length < count) {
    deliveries.push(...(await queue.receive({ maxMessages: Math.min(10, count - deliveries.length) })));
  }
  return { driver, queue, deliveries };
}

const settleOf = (settle: number) => ({ capabilities: { batch: { ...batchOf(10), settle } } });
const reasonOf = (result: PromiseSettledResult<void>) =>
  result.status === 'fulfilled' ? 'ok' : (result.reason as QueueError).code;

describe('single settles are coalesced into batch calls', () => {
  it('acks made in one turn go out as calls of up to batch.settle, in the order they were made', async () => {
    const { driver, deliveries } = await received(7, settleOf(3));
    await Promise.all(deliveries.map((delivery) => delivery.ack()));
    expect(driver.callsOf('ack')).toEqual([['r-0', 'r-1', 'r-2'], ['r-3', 'r-4', 'r-5'], ['r-6']]);
    expect(deliveries.every((delivery) => delivery.settled)).toBe(true);
  });

  it('each caller gets its own entry’s outcome: one refused entry fails only its own ack', async () => {
    const { driver, deliveries } = await received(4, {
      settleOutcome: (_operation, receipt) =>
        receipt === 'r-2'
          ? { ok: false, error: new QueueError('LEASE_LOST', 'lease of r-2 lost') }
          : { ok: true },
    });
    const results = await Promise.allSettled(deliveries.map((delivery) => delivery.ack()));
    expect(driver.callsOf('ack')).toEqual([['r-0', 'r-1', 'r-2', 'r-3']]);
    expect(results.map(reasonOf)).toEqual(['ok', 'ok', 'LEASE_LOST', 'ok']);
    expect(deliveries.map((delivery) => delivery.settled)).toEqual([true, true, false, true]);
  });

  it('releases and dead-letter moves are joined too, each entry with its own delay or reason', async () => {
    const { driver, deliveries } = await received(6);
    const [a, b, c, d, e, f] = deliveries as [Delivery, Delivery, Delivery, Delivery, Delivery, Delivery];
    await Promise.all([
      a.release({ delaySeconds: 5 }),
      b.release(),
      c.release({ delaySeconds: 60 }),
      d.deadLetter('poison'),
      e.deadLetter('too old'),
      f.ack(),
    ]);
    expect(driver.callsOf('release')).toEqual([['r-0', 'r-1', 'r-2']]);
    expect(driver.releases).toEqual([
      { receipt: 'r-0', delaySeconds: 5 },
      { receipt: 'r-1', delaySeconds: 0 },
      { receipt: 'r-2', delaySeconds: 60 },
    ]);
    expect(driver.callsOf('deadLetter')).toEqual([['r-3', 'r-4']]);
    expect(driver.deadLettered.map((entry) => entry.reason)).toEqual(['poison', 'too old']);
    expect(driver.callsOf('ack')).toEqual([['r-5']]);
  });

  it('a provider that settles one entry per call gets each settle on its own', async () => {
    const { driver, deliveries } = await received(3, settleOf(1));
    await Promise.all(deliveries.map((delivery) => delivery.ack()));
    expect(driver.callsOf('ack')).toEqual([['r-0'], ['r-1'], ['r-2']]);
  });

  it('close waits for an ack still waiting for its batch, and the driver closes after it', async () => {
    const { driver, queue, deliveries } = await received(2);
    const acks = deliveries.map((delivery) => delivery.ack());
    await queue.close();
    await Promise.all(acks);
    expect(driver.callsOf('ack')).toEqual([['r-0', 'r-1']]);
    expect(driver.closeCalls).toBe(1);
  });

  it('a consumer’s acks of deliveries finished in one turn are one call', async () => {
    const driver = new RecordingDriver();
    fillInbox(driver, 10);
    const queue = new Queue(driver, fastRetry);
    const consumer = queue.consume(async () => {}, { concurrency: 10, waitSeconds: 0 });
    const drained = new Promise<void>((resolve) => consumer.once('drained', () => resolve()));
    await drained;
    await consumer.close();
    await queue.close();
    expect(consumer.stats.acked).toBe(10);
    expect(driver.callsOf('ack')).toEqual([Array.from({ length: 10 }, (_, n) => `r-${n}`)]);
  });
});
