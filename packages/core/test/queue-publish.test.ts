import { type PublishInput, Queue, QueueError, type QueueOptions } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { batchOf, RecordingDriver } from './helpers/recording-driver';

// Queue retries use real time; a zero backoff keeps these tests from waiting at all.
const fastRetry: QueueOptions = { retry: { baseMs: 0, maxMs: 0, maxAttempts: 4 } };

const inputs = (count: number): PublishInput[] =>
  Array.from({ length: count }, (_, n) => ({
    envelope: { event_id: `evt_${n}`, type: 'test.event', payload: { n } },
  }));

describe('publishBatch', () => {
  it('sends in chunks of batch.publish and returns receipts in input order', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: { ...batchOf(10), publish: 3 } } });
    const receipts = await new Queue(driver).publishBatch(inputs(7));
    expect(driver.publishCalls.map((call) => call.length)).toEqual([3, 3, 1]);
    expect(driver.published.map((m) => m.eventId)).toEqual(inputs(7).map((i) => i.envelope.event_id));
    expect(receipts.map((r) => r.eventId)).toEqual(inputs(7).map((i) => i.envelope.event_id));
    expect(new Set(receipts.map((r) => r.messageId)).size).toBe(7);
  });

  it('sends a batch of exactly batch.publish in one call', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: { ...batchOf(10), publish: 4 } } });
    await new Queue(driver).publishBatch(inputs(4));
    expect(driver.publishCalls.map((call) => call.length)).toEqual([4]);
  });

  it('sends nothing for an empty batch', async () => {
    const driver = new RecordingDriver();
    expect(await new Queue(driver).publishBatch([])).toEqual([]);
    expect(driver.publishCalls).toEqual([]);
  });

  it('reports duplicate and sizeBytes per entry where the manifest declares reportsDuplicates', async () => {
    const driver = new RecordingDriver({
      capabilities: { dedupe: { kind: 'window', windowSeconds: 300, reportsDuplicates: true } },
      outcome: (message) => ({
        ok: true,
        messageId: `id-${message.eventId}`,
        duplicate: message.eventId === 'evt_1',
      }),
    });
    const receipts = await new Queue(driver).publishBatch(inputs(3));
    expect(receipts.map((r) => r.duplicate)).toEqual([false, true, false]);
    expect(receipts.map((r) => r.messageId)).toEqual(['id-evt_0', 'id-evt_1', 'id-evt_2']);
    receipts.forEach((receipt, i) => {
      expect(receipt.sizeBytes).toBe(Buffer.byteLength(driver.published[i]!.body, 'utf8'));
    });
  });

  it.each([
    ['leaves reportsDuplicates out', { kind: 'window', windowSeconds: 300 }],
    ['declares reportsDuplicates false', { kind: 'while-retained', reportsDuplicates: false }],
  ] as const)(
    'says duplicate: false ("not known") where the manifest %s, whatever the driver answers',
    async (_, dedupe) => {
      const driver = new RecordingDriver({
        capabilities: { dedupe },
        outcome: (message) => ({ ok: true, messageId: `id-${message.eventId}`, duplicate: true }),
      });
      const queue = new Queue(driver);
      expect((await queue.publishBatch(inputs(3))).map((r) => r.duplicate)).toEqual([false, false, false]);
      expect((await queue.publish(inputs(1)[0]!)).duplicate).toBe(false);
    },
  );

  it('treats an undefined duplicate flag as false', async () => {
    const driver = new RecordingDriver({ outcome: () => ({ ok: true, messageId: 'x' }) });
    expect((await new Queue(driver).publish(inputs(1)[0]!)).duplicate).toBe(false);
  });
});

describe('partial batch failures', () => {
  it('retries only the entries that failed retryably and keeps receipts in input order', async () => {
    const failOnFirstCall = new Set(['evt_1', 'evt_3']);
    const driver = new RecordingDriver({
      outcome: (message, call) =>
        call === 0 && failOnFirstCall.has(message.eventId)
          ? { ok: false, error: new QueueError('UNAVAILABLE', 'shard busy') }
          : { ok: true, messageId: `call${call}-${message.eventId}` },
    });
    const retries: Array<{ operation: string; attempt: number }> = [];
    const queue = new Queue(driver, {
      ...fastRetry,
      hooks: { onRetry: ({ operation, attempt }) => retries.push({ operation, attempt }) },
    });
    const receipts = await queue.publishBatch(inputs(5));

    expect(driver.publishCalls.map((call) => call.map((m) => m.eventId))).toEqual([
      ['evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4'],
      ['evt_1', 'evt_3'],
    ]);
    expect(receipts.map((r) => r.messageId)).toEqual([
      'call0-evt_0',
      'call1-evt_1',
      'call0-evt_2',
      'call1-evt_3',
      'call0-evt_4',
    ]);
    expect(retries).toEqual([{ operation: 'publish', attempt: 1 }]);
  });

  it('gives up after maxAttempts when an entry keeps failing retryably', async () => {
    const driver = new RecordingDriver({
      outcome: (message, call) =>
        message.eventId === 'evt_2'
          ? { ok: false, error: new QueueError('RATE_LIMITED', 'slow down') }
          : { ok: true, messageId: `call${call}-${message.eventId}` },
    });
    const queue = new Queue(driver, { retry: { baseMs: 0, maxMs: 0, maxAttempts: 3 } });
    await expect(queue.publishBatch(inputs(3))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(driver.publishCalls.map((call) => call.map((m) => m.eventId))).toEqual([
      ['evt_0', 'evt_1', 'evt_2'],
      ['evt_2'],
      ['evt_2'],
    ]);
  });

  it('surfaces a non-retryable entry error without retrying', async () => {
    const driver = new RecordingDriver({
      outcome: (message) =>
        message.eventId === 'evt_1'
          ? { ok: false, error: new QueueError('UNAUTHORIZED', 'key revoked') }
          : { ok: true, messageId: message.eventId },
    });
    const error = await new Queue(driver, fastRetry).publishBatch(inputs(3)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: 'key revoked' });
    expect(driver.publishCalls).toHaveLength(1);
  });

  it('prefers the non-retryable error when entries fail both ways', async () => {
    const driver = new RecordingDriver({
      outcome: (message, call) => {
        if (message.eventId === 'evt_0') return { ok: false, error: new QueueError('UNAVAILABLE', 'busy') };
        if (message.eventId === 'evt_2' && call === 0)
          return { ok: false, error: new QueueError('NOT_FOUND', 'no such queue') };
        return { ok: true, messageId: message.eventId };
      },
    });
    await expect(new Queue(driver, fastRetry).publishBatch(inputs(3))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    // The retryable entry is retried on its own; the non-retryable one is never sent again.
    expect(driver.publishCalls.map((call) => call.map((m) => m.eventId))).toEqual([
      ['evt_0', 'evt_1', 'evt_2'],
      ['evt_0'],
      ['evt_0'],
      ['evt_0'],
    ]);
  });

  it('retries a whole call that failed on the network, with the error normalised', async () => {
    const driver = new RecordingDriver({
      publishThrows: (call) =>
        call === 0
          ? Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' })
          : undefined,
    });
    const receipts = await new Queue(driver, fastRetry).publishBatch(inputs(2));
    expect(receipts).toHaveLength(2);
    expect(driver.publishCalls.map((call) => call.length)).toEqual([2, 2]);

    const down = new RecordingDriver({
      publishThrows: () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    const error = await new Queue(down, { retry: { baseMs: 0, maxMs: 0, maxAttempts: 2 } })
      .publish(inputs(1)[0]!)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(down.publishCalls).toHaveLength(2);
  });

  it("uses the driver's classifier for thrown errors", async () => {
    const driver = new RecordingDriver({
      publishThrows: () => ({ status: 403 }),
      classifyError: (error) =>
        (error as { status?: number }).status === 403
          ? new QueueError('UNAUTHORIZED', 'forbidden')
          : undefined,
    });
    await expect(new Queue(driver, fastRetry).publish(inputs(1)[0]!)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(driver.publishCalls).toHaveLength(1);
  });

  it('rejects a driver that returns the wrong number of outcomes', async () => {
    const driver = new RecordingDriver({ rawOutcomes: () => [{ ok: true, messageId: 'only-one' }] });
    const error = await new Queue(driver, fastRetry).publishBatch(inputs(2)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect((error as Error).message).toContain('publish returned 1 outcomes for 2 entries');
  });
});
