import { Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { event, setup } from './helpers/setup';

const ids = (deliveries: ReadonlyArray<{ envelope: { event_id: string } }>) =>
  deliveries.map((d) => d.envelope.event_id);

describe('FIFO per group', () => {
  it('declares fifo-per-group by default', () => {
    expect(new MemoryDriver().capabilities.ordering).toBe('fifo-per-group');
  });

  it('blocks a group while its head is leased, without blocking other groups', async () => {
    const { queue } = setup();
    await queue.publishBatch([
      event('a1', { groupId: 'A' }),
      event('a2', { groupId: 'A' }),
      event('b1', { groupId: 'B' }),
      event('free'),
      event('b2', { groupId: 'B' }),
    ]);
    const first = await queue.receive({ maxMessages: 10 });
    expect(ids(first)).toEqual(['a1', 'b1', 'free']);
    expect(first.map((d) => d.groupId)).toEqual(['A', 'B', undefined]);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);

    await first[0]!.ack();
    expect(ids(await queue.receive({ maxMessages: 10 }))).toEqual(['a2']);
    await first[1]!.ack();
    expect(ids(await queue.receive({ maxMessages: 10 }))).toEqual(['b2']);
  });

  it('keeps order across a release: the released head comes back before the next in its group', async () => {
    const { queue, clock } = setup();
    await queue.publishBatch([event('a1', { groupId: 'A' }), event('a2', { groupId: 'A' })]);
    const [head] = await queue.receive({ maxMessages: 10 });
    await head!.release({ delaySeconds: 30 });
    // While the head waits out its delay, the message behind it must not overtake it.
    await clock.advance(29_000);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    await clock.advance(1_000);
    const again = await queue.receive({ maxMessages: 10 });
    expect(ids(again)).toEqual(['a1']);
    expect(again[0]!.receiveCount).toBe(2);
    await again[0]!.ack();
    expect(ids(await queue.receive({ maxMessages: 10 }))).toEqual(['a2']);
  });

  it('keeps order across a lease expiry', async () => {
    const { queue, clock } = setup();
    await queue.publishBatch([event('a1', { groupId: 'A' }), event('a2', { groupId: 'A' })]);
    await queue.receive({ leaseSeconds: 10 });
    await clock.advance(10_000);
    expect(ids(await queue.receive({ maxMessages: 10 }))).toEqual(['a1']);
  });

  it('a delayed head holds back its group', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('a1', { groupId: 'A', delaySeconds: 60 }));
    await queue.publish(event('a2', { groupId: 'A' }));
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    await clock.advance(60_000);
    expect(ids(await queue.receive({ maxMessages: 10 }))).toEqual(['a1']);
  });

  it('with ordering none, groups are refused by the Queue', async () => {
    const driver = new MemoryDriver({ ordering: 'none' });
    const queue = new Queue(driver);
    await expect(queue.publish(event('a1', { groupId: 'A' }))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(driver.depth()).toBe(0);
  });
});
