import { encodeEnvelope, MAX_DELAY_SECONDS, prepareEnvelope, Queue, type QueueError } from '@queueport/core';
import type { DriverMessage } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { RecordingDriver } from './helpers/recording-driver';

const envelope = prepareEnvelope({
  event_id: 'payment_8472:settled:v3',
  type: 'payment.settled',
  payload: { amount: 1200 },
});

const noDeadLetters = { move: false, redriveAfterReceives: null };

function message(n: number, body = encodeEnvelope(envelope)): DriverMessage {
  return { receipt: `r-${n}`, messageId: `m-${n}`, body, attributes: { n: String(n) }, receiveCount: n };
}

describe('receive', () => {
  it('asks the driver with defaults: one message, the default lease, no wait', async () => {
    const driver = new RecordingDriver();
    await new Queue(driver, { defaultLeaseSeconds: 45 }).receive();
    expect(driver.receiveCalls).toEqual([
      { maxMessages: 1, leaseSeconds: 45, waitSeconds: 0, signal: expect.any(AbortSignal) },
    ]);
  });

  it('passes maxMessages, leaseSeconds, waitSeconds and the signal through', async () => {
    const driver = new RecordingDriver();
    const caller = new AbortController();
    await new Queue(driver).receive({
      maxMessages: 10,
      leaseSeconds: 5,
      waitSeconds: 20,
      signal: caller.signal,
    });
    const [request] = driver.receiveCalls;
    expect(request).toMatchObject({ maxMessages: 10, leaseSeconds: 5, waitSeconds: 20 });
    // The driver's signal carries the call's deadline and the caller's abort (call-deadline.test.ts).
    expect(request!.signal).toBeInstanceOf(AbortSignal);
    expect(request!.signal?.aborted).toBe(false);
  });

  it.each([
    ['maxMessages 0', { maxMessages: 0 }],
    ['fractional maxMessages', { maxMessages: 1.5 }],
    ['negative leaseSeconds', { leaseSeconds: -1 }],
    ['leaseSeconds above the manifest', { leaseSeconds: 43_201 }],
    ['NaN leaseSeconds', { leaseSeconds: Number.NaN }],
    ['infinite waitSeconds', { waitSeconds: Number.POSITIVE_INFINITY }],
    ['negative waitSeconds', { waitSeconds: -1 }],
    ['NaN waitSeconds', { waitSeconds: Number.NaN }],
  ])('rejects %s with INVALID_ARGUMENT before calling the driver', async (_name, options) => {
    const driver = new RecordingDriver();
    await expect(new Queue(driver).receive(options)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(driver.receiveCalls).toEqual([]);
  });

  it('turns driver messages into deliveries carrying the decoded envelope', async () => {
    const driver = new RecordingDriver({ capabilities: { ordering: 'fifo-per-group' } });
    driver.inbox.push({ ...message(2), groupId: 'g-1' });
    const [delivery] = await new Queue(driver).receive();
    expect(delivery!.envelope).toEqual(envelope);
    expect(delivery!.attributes).toEqual({ n: '2' });
    expect(delivery!.receiveCount).toBe(2);
    expect(delivery!.messageId).toBe('m-2');
    expect(delivery!.receipt).toBe('r-2');
    expect(delivery!.groupId).toBe('g-1');
  });

  it('drops a body that is not a valid envelope, reports it and dead-letters it', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(
      message(1, 'not json'),
      message(2),
      message(3, JSON.stringify({ ...envelope, payload: 'tampered' })),
    );
    const invalid: Array<{ messageId: string; code: string }> = [];
    const queue = new Queue(driver, {
      hooks: { onInvalidMessage: ({ messageId, error }) => invalid.push({ messageId, code: error.code }) },
    });
    const deliveries = await queue.receive({ maxMessages: 3 });
    expect(deliveries.map((d) => d.messageId)).toEqual(['m-2']);
    expect(invalid).toEqual([
      { messageId: 'm-1', code: 'INVALID_ENVELOPE' },
      { messageId: 'm-3', code: 'INVALID_ENVELOPE' },
    ]);
    expect(driver.deadLettered.map((d) => d.receipt)).toEqual(['r-1', 'r-3']);
  });

  it('checks a body the driver parsed already as it checks the text, refusing a tampered one', async () => {
    const driver = new RecordingDriver();
    const body = encodeEnvelope(envelope);
    driver.inbox.push(
      { ...message(1, body), parsedBody: JSON.parse(body) },
      { ...message(2, body), parsedBody: { ...JSON.parse(body), payload: 'tampered' } },
    );
    const invalid: string[] = [];
    const queue = new Queue(driver, {
      hooks: { onInvalidMessage: ({ messageId }) => invalid.push(messageId) },
    });
    const deliveries = await queue.receive({ maxMessages: 2 });
    expect(deliveries.map((d) => [d.messageId, d.body, d.envelope.event_id])).toEqual([
      ['m-1', body, envelope.event_id],
    ]);
    expect(invalid).toEqual(['m-2']);
  });

  it('tries again after a pass that held only invalid bodies, so a drain loop is not cut short', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(message(1, 'not json'), message(2, '{}'), message(3));
    const deliveries = await new Queue(driver).receive({ maxMessages: 1 });
    expect(deliveries.map((d) => d.messageId)).toEqual(['m-3']);
    expect(driver.receiveCalls).toHaveLength(3);
  });

  it('gives up after a bounded number of such passes', async () => {
    const driver = new RecordingDriver();
    for (let n = 0; n < 80; n++) driver.inbox.push(message(n, 'not json'));
    expect(await new Queue(driver).receive({ maxMessages: 1 })).toEqual([]);
    expect(driver.receiveCalls.length).toBeLessThan(80);
  });

  it('leaves an invalid body alone when the driver has no dead-letter destination', async () => {
    const driver = new RecordingDriver({
      capabilities: { deadLetter: noDeadLetters },
      withoutDeadLetter: true,
    });
    driver.inbox.push(message(1, '{}'));
    expect(await new Queue(driver).receive()).toEqual([]);
    expect(driver.acks).toEqual([]);
    expect(driver.releases).toEqual([]);
  });
});

describe('delivery settlement', () => {
  async function oneDelivery(driver: RecordingDriver) {
    driver.inbox.push(message(1));
    const [delivery] = await new Queue(driver).receive();
    return delivery!;
  }

  it('ack, release, extendLease and deadLetter reach the driver with the receipt', async () => {
    const driver = new RecordingDriver();
    const extended = await oneDelivery(driver);
    await extended.extendLease(60);
    await extended.release({ delaySeconds: 30 });
    await (await oneDelivery(driver)).release();
    await (await oneDelivery(driver)).ack();
    await (await oneDelivery(driver)).deadLetter('poison');
    expect(driver.extensions).toEqual([{ receipt: 'r-1', leaseSeconds: 60 }]);
    expect(driver.releases).toEqual([
      { receipt: 'r-1', delaySeconds: 30 },
      { receipt: 'r-1', delaySeconds: 0 },
    ]);
    expect(driver.acks).toEqual(['r-1']);
    expect(driver.deadLettered).toEqual([{ receipt: 'r-1', reason: 'poison' }]);
  });

  it('refuses any settle or extension of a settled delivery, without asking the driver', async () => {
    const driver = new RecordingDriver();
    const delivery = await oneDelivery(driver);
    await delivery.release();
    const after = [
      () => delivery.ack(),
      () => delivery.release({ delaySeconds: 5 }),
      () => delivery.extendLease(60),
      () => delivery.deadLetter('late'),
    ];
    for (const settle of after) await expect(settle()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(driver.releases).toEqual([{ receipt: 'r-1', delaySeconds: 0 }]);
    expect(driver.acks).toEqual([]);
    expect(driver.extensions).toEqual([]);
    expect(driver.deadLettered).toEqual([]);
  });

  it('answers a settled delivery in a batch with LEASE_LOST and settles the rest', async () => {
    const driver = new RecordingDriver();
    driver.inbox.push(message(1), message(2));
    const queue = new Queue(driver);
    const [first, second] = await queue.receive({ maxMessages: 2 });
    await first!.ack();
    const acked = await queue.ackBatch([first!, second!]);
    expect(acked.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['LEASE_LOST', 'ok']);
    const released = await queue.releaseBatch([{ delivery: first! }, { delivery: second! }]);
    expect(released.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['LEASE_LOST', 'LEASE_LOST']);
    expect(driver.acks).toEqual(['r-1', 'r-2']);
    expect(driver.releases).toEqual([]);
  });

  it('refuses a bridged release of a settled delivery before anything is re-sent', async () => {
    const driver = new RecordingDriver({
      capabilities: { delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false } },
    });
    const delivery = await oneDelivery(driver);
    await delivery.ack();
    const before = driver.published.length;
    await expect(delivery.release({ delaySeconds: 86_400 })).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(driver.published.length).toBe(before);
    expect(driver.extensions).toEqual([]);
  });

  it('checks a release delay with the same rule as publish', async () => {
    const driver = new RecordingDriver();
    const delivery = await oneDelivery(driver);
    for (const delaySeconds of [-1, 0.5, Number.NaN, MAX_DELAY_SECONDS + 1]) {
      await expect(delivery.release({ delaySeconds })).rejects.toMatchObject({ code: 'DELAY_OUT_OF_RANGE' });
    }
    expect(driver.releases).toEqual([]);
    await delivery.release({ delaySeconds: MAX_DELAY_SECONDS });
    expect(driver.releases).toEqual([{ receipt: 'r-1', delaySeconds: MAX_DELAY_SECONDS }]);
  });

  it('checks the lease of an extension', async () => {
    const driver = new RecordingDriver();
    const delivery = await oneDelivery(driver);
    await expect(delivery.extendLease(43_201)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(driver.extensions).toEqual([]);
  });

  it('refuses extendLease and deadLetter where the driver lacks them', async () => {
    const driver = new RecordingDriver({
      capabilities: { leaseExtension: false, deadLetter: noDeadLetters },
      withoutExtendLease: true,
      withoutDeadLetter: true,
    });
    const delivery = await oneDelivery(driver);
    await expect(delivery.extendLease(10)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(delivery.deadLetter('x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('close', () => {
  it('closes the driver once and refuses every later operation with CLOSED', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);
    await queue.close();
    await queue.close();
    expect(driver.closeCalls).toBe(1);

    const publish = { envelope: { event_id: 'e', type: 't', payload: 1 } };
    const attempts: Array<() => unknown> = [
      () => queue.publish(publish),
      () => queue.publishBatch([publish]),
      () => queue.receive(),
      () => queue.consume(async () => {}),
    ];
    for (const attempt of attempts) {
      const error = await Promise.resolve()
        .then(attempt)
        .catch((e: unknown) => e);
      expect((error as QueueError).code).toBe('CLOSED');
      expect((error as QueueError).retryable).toBe(false);
    }
    expect(driver.publishCalls).toEqual([]);
    expect(driver.receiveCalls).toEqual([]);
  });
});
