import { MAX_RETENTION_SECONDS } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { event, setup } from './helpers/setup';

describe('retention', () => {
  it('defaults to the portable maximum', () => {
    expect(setup().driver.capabilities.retentionSeconds).toBe(MAX_RETENTION_SECONDS);
  });

  it('drops a message older than the retention period, delivered or not', async () => {
    const { queue, driver, clock } = setup({ retentionSeconds: 60 });
    await queue.publish(event('old'));
    await queue.publish(event('leased'));
    await queue.receive({ maxMessages: 1, leaseSeconds: 1 });
    await clock.advance(30_000);
    await queue.publish(event('young'));
    await clock.advance(29_999);
    expect(driver.depth()).toBe(3);
    await clock.advance(1);
    expect(driver.depth()).toBe(1);
    expect((await queue.receive({ maxMessages: 10 })).map((d) => d.envelope.event_id)).toEqual(['young']);
    expect(driver.deadLetters()).toEqual([]);
  });

  it('a leased message that expires is gone for its holder too', async () => {
    const { queue, clock } = setup({ retentionSeconds: 60 });
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive({ leaseSeconds: 600 });
    await clock.advance(60_000);
    await queue.receive();
    await expect(delivery!.ack()).rejects.toMatchObject({ code: 'LEASE_LOST' });
  });
});

describe('maxReceives', () => {
  it('moves a message to the dead letters instead of delivering it again', async () => {
    const { queue, driver, clock } = setup({ maxReceives: 2 });
    await queue.publish(event('poison'));
    await queue.publish(event('fine'));
    const counts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const [delivery] = await queue.receive({ leaseSeconds: 5 });
      expect(delivery!.envelope.event_id).toBe('poison');
      counts.push(delivery!.receiveCount);
      await clock.advance(5_000);
    }
    expect(counts).toEqual([1, 2]);
    const next = await queue.receive({ maxMessages: 10 });
    expect(next.map((d) => d.envelope.event_id)).toEqual(['fine']);
    expect(driver.deadLetters()).toHaveLength(1);
    expect(driver.deadLetters()[0]).toMatchObject({
      eventId: 'poison',
      receiveCount: 2,
      reason: 'received 2 times',
    });
  });

  it('lets the next message of a group through once its head is dead-lettered', async () => {
    const { queue, driver } = setup({ maxReceives: 1 });
    await queue.publishBatch([event('a1', { groupId: 'A' }), event('a2', { groupId: 'A' })]);
    const [head] = await queue.receive();
    await head!.release();
    expect((await queue.receive({ maxMessages: 10 })).map((d) => d.envelope.event_id)).toEqual(['a2']);
    expect(driver.deadLetters().map((d) => d.eventId)).toEqual(['a1']);
  });
});
