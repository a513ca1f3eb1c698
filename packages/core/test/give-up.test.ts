import { type Delivery, encodeEnvelope, giveUpDelivery, prepareEnvelope, Queue } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { RecordingDriver, type RecordingDriverOptions } from './helpers/recording-driver';

const body = encodeEnvelope(prepareEnvelope({ event_id: 'evt_dead', type: 't', payload: 1 }));
const noMove = { move: false, redriveAfterReceives: null };

async function received(options: RecordingDriverOptions = {}) {
  const driver = new RecordingDriver(options);
  driver.inbox.push({ receipt: 'r-1', messageId: 'm-1', body, attributes: {}, receiveCount: 3 });
  const queue = new Queue(driver);
  const [delivery] = await queue.receive();
  return { driver, queue, delivery: delivery! };
}

describe('giveUpDelivery', () => {
  it("moves the message to the provider's dead letters where it can, even with a sink", async () => {
    const { driver, queue, delivery } = await received();
    const sunk: string[] = [];
    const result = await giveUpDelivery(queue, delivery, 'poison', {
      sink: async (_d, reason) => void sunk.push(reason),
      keepDelayMs: 60_000,
    });
    expect(result).toBe('dead-lettered');
    expect(driver.deadLettered).toEqual([{ receipt: 'r-1', reason: 'poison' }]);
    expect(sunk).toEqual([]);
    expect(driver.acks).toEqual([]);
    expect(delivery.settled).toBe(true);
  });

  it('else hands it to the sink, then acks it', async () => {
    const { driver, queue, delivery } = await received({
      capabilities: { deadLetter: noMove },
      withoutDeadLetter: true,
    });
    const order: string[] = [];
    const result = await giveUpDelivery(queue, delivery, 'poison', {
      sink: async (sunk: Delivery, reason) => {
        order.push(`sink ${sunk.envelope.event_id} ${reason} acked=${driver.acks.length}`);
      },
      keepDelayMs: 60_000,
    });
    expect(result).toBe('sunk');
    expect(order).toEqual(['sink evt_dead poison acked=0']);
    expect(driver.acks).toEqual(['r-1']);
    expect(driver.releases).toEqual([]);
  });

  it('does not ack when the sink fails: the message must come back, not vanish', async () => {
    const { driver, queue, delivery } = await received({
      capabilities: { deadLetter: noMove },
      withoutDeadLetter: true,
    });
    const failing = giveUpDelivery(queue, delivery, 'poison', {
      sink: async () => {
        throw new Error('ledger down');
      },
      keepDelayMs: 60_000,
    });
    await expect(failing).rejects.toThrow('ledger down');
    expect(driver.acks).toEqual([]);
    expect(delivery.settled).toBe(false);
  });

  it('else keeps it: released for keepDelayMs, fitted to the delay rules', async () => {
    const { driver, queue, delivery } = await received({
      capabilities: { deadLetter: noMove },
      withoutDeadLetter: true,
    });
    expect(await giveUpDelivery(queue, delivery, 'poison', { keepDelayMs: 1_500 })).toBe('kept');
    expect(driver.releases).toEqual([{ receipt: 'r-1', delaySeconds: 2 }]);
    expect(driver.acks).toEqual([]);

    const long = await received({ capabilities: { deadLetter: noMove }, withoutDeadLetter: true });
    await giveUpDelivery(long.queue, long.delivery, 'poison', { keepDelayMs: 30 * 86_400_000 });
    expect(long.driver.releases).toEqual([{ receipt: 'r-1', delaySeconds: 604_800 }]);
  });
});
