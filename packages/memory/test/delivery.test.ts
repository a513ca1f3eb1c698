import { QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { event, setup } from './helpers/setup';

describe('MemoryDriver through Queue: delivery and leases', () => {
  it('round-trips an envelope and its attributes; ack deletes it', async () => {
    const { queue, driver } = setup();
    const published = await queue.publish({
      envelope: {
        event_id: 'payment_8472:settled:v3',
        type: 'payment.settled',
        payload: { amount: 1200, currency: 'EUR' },
      },
      attributes: { tenant: 'acme' },
    });
    expect(published.duplicate).toBe(false);
    const [delivery, ...rest] = await queue.receive({ maxMessages: 10 });
    expect(rest).toEqual([]);
    expect(delivery!.envelope.event_id).toBe('payment_8472:settled:v3');
    expect(delivery!.envelope.payload).toEqual({ amount: 1200, currency: 'EUR' });
    expect(delivery!.attributes).toEqual({ tenant: 'acme' });
    expect(delivery!.messageId).toBe(published.messageId);
    expect(delivery!.receiveCount).toBe(1);
    await delivery!.ack();
    expect(driver.depth()).toBe(0);
    expect(await queue.receive()).toEqual([]);
  });

  it('delivers in publish order and at most maxMessages at a time', async () => {
    const { queue } = setup();
    await queue.publishBatch(['a', 'b', 'c', 'd'].map((id) => event(id)));
    const first = await queue.receive({ maxMessages: 3 });
    const second = await queue.receive({ maxMessages: 3 });
    expect(first.map((d) => d.envelope.event_id)).toEqual(['a', 'b', 'c']);
    expect(second.map((d) => d.envelope.event_id)).toEqual(['d']);
  });

  it('keeps a delayed message invisible until it is due', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('later', { delaySeconds: 10 }));
    await clock.advance(9_999);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(1);
    expect((await queue.receive()).map((d) => d.envelope.event_id)).toEqual(['later']);
  });

  it('lets a later undelayed message overtake a delayed one (no group)', async () => {
    const { queue } = setup();
    await queue.publish(event('delayed', { delaySeconds: 5 }));
    await queue.publish(event('now'));
    expect((await queue.receive({ maxMessages: 10 })).map((d) => d.envelope.event_id)).toEqual(['now']);
  });

  it('redelivers after the lease expires, with a higher receive count; the old receipt is LEASE_LOST', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    const [first] = await queue.receive({ leaseSeconds: 30 });
    await clock.advance(29_999);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(1);
    const [second] = await queue.receive({ leaseSeconds: 30 });
    expect(second!.messageId).toBe(first!.messageId);
    expect(second!.receipt).not.toBe(first!.receipt);
    expect(second!.receiveCount).toBe(2);

    const lost = await first!.ack().catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(QueueError);
    expect(lost).toMatchObject({ code: 'LEASE_LOST', retryable: false });
    await expect(first!.release()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    await expect(first!.extendLease(30)).rejects.toMatchObject({ code: 'LEASE_LOST' });

    await second!.ack();
    expect(await queue.receive()).toEqual([]);
  });

  it('still acks after the lease expired as long as nobody received it again', async () => {
    const { queue, clock, driver } = setup();
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive({ leaseSeconds: 10 });
    await clock.advance(60_000);
    await delivery!.ack();
    expect(driver.depth()).toBe(0);
    expect(await queue.receive()).toEqual([]);
  });

  it('cannot extend a lease that has already expired', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive({ leaseSeconds: 10 });
    await clock.advance(10_000);
    await expect(delivery!.extendLease(10)).rejects.toMatchObject({ code: 'LEASE_LOST' });
  });

  it('release makes the message visible again after its delay', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    const [first] = await queue.receive({ leaseSeconds: 300 });
    await first!.release({ delaySeconds: 5 });
    await clock.advance(4_999);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(1);
    const [again] = await queue.receive();
    expect(again!.envelope.event_id).toBe('e1');
    expect(again!.receiveCount).toBe(2);
    await expect(first!.ack()).rejects.toMatchObject({ code: 'LEASE_LOST' });
  });

  it('release without a delay makes it visible at once', async () => {
    const { queue } = setup();
    await queue.publish(event('e1'));
    const [first] = await queue.receive({ leaseSeconds: 300 });
    await first!.release();
    expect((await queue.receive()).map((d) => d.receiveCount)).toEqual([2]);
  });

  it('extendLease keeps the message hidden past its original lease', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive({ leaseSeconds: 10 });
    await clock.advance(8_000);
    await delivery!.extendLease(10); // now hidden until 18 s
    await clock.advance(9_999);
    expect(await queue.receive()).toEqual([]);
    await delivery!.ack();
    await clock.advance(60_000);
    expect(await queue.receive()).toEqual([]);
  });

  it('an extended lease still runs out', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive({ leaseSeconds: 10 });
    await delivery!.extendLease(20);
    await clock.advance(19_999);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(1);
    expect((await queue.receive()).map((d) => d.receiveCount)).toEqual([2]);
  });

  it('deadLetter moves the message out with its reason', async () => {
    const { queue, driver, clock } = setup();
    await queue.publish(event('poison', { attributes: { tenant: 'acme' } }));
    const [delivery] = await queue.receive();
    await clock.advance(1_234);
    await delivery!.deadLetter('handler refused it');
    expect(driver.depth()).toBe(0);
    const [dead] = driver.deadLetters();
    expect(dead).toMatchObject({
      messageId: delivery!.messageId,
      eventId: 'poison',
      attributes: { tenant: 'acme' },
      receiveCount: 1,
      reason: 'handler refused it',
      at: clock.now(),
    });
    expect(JSON.parse(dead!.body)).toEqual(delivery!.envelope);
  });

  it('refuses operations with CLOSED after close', async () => {
    const { queue } = setup();
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive();
    await queue.close();
    await expect(delivery!.ack()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(queue.publish(event('e2'))).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
