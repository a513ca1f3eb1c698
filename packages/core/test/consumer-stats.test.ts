import { encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import type { DriverMessage } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { RecordingDriver } from './helpers/recording-driver';

function message(n: number): DriverMessage {
  const envelope = prepareEnvelope({ event_id: `evt_stats_${n}`, type: 'test.stats', payload: { n } });
  return {
    receipt: `r-${n}`,
    messageId: `m-${n}`,
    body: encodeEnvelope(envelope),
    attributes: {},
    receiveCount: 1,
  };
}

async function consumeThree(handler: Parameters<Queue['consume']>[0]) {
  const driver = new RecordingDriver();
  driver.inbox.push(message(1), message(2), message(3));
  const queue = new Queue(driver);
  const consumer = queue.consume(handler, { waitSeconds: 0 });
  await new Promise<void>((resolve) => consumer.once('drained', () => resolve()));
  await consumer.close();
  return { stats: consumer.stats, driver };
}

describe('consumer stats', () => {
  it('count deliveries the consumer acked', async () => {
    const { stats } = await consumeThree(async () => {});
    expect(stats).toMatchObject({ received: 3, acked: 3, released: 0, deadLettered: 0 });
  });

  it('count deliveries a handler settled itself, as the webhook worker does', async () => {
    let n = 0;
    const { stats, driver } = await consumeThree(async (delivery) => {
      n++;
      if (n === 1) await delivery.ack();
      else if (n === 2) await delivery.release({ delaySeconds: 5 });
      else await delivery.deadLetter('handled elsewhere');
    });
    expect(driver.acks).toEqual(['r-1']);
    expect(stats).toMatchObject({ received: 3, acked: 1, released: 1, deadLettered: 1, errors: 0 });
  });

  it('count three self-acked deliveries as three acks', async () => {
    const { stats } = await consumeThree((delivery) => delivery.ack());
    expect(stats).toMatchObject({ received: 3, acked: 3 });
  });
});
