import { encodeEnvelope, type PublishInput, prepareEnvelope, Queue } from '@queueport/core';
import { assertCapabilities } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { batchOf, RecordingDriver, testCapabilities } from './helpers/recording-driver';

/** An event whose encoded envelope plus attributes is exactly `bytes` long. */
function eventOfSize(id: string, bytes: number, attributes: Record<string, string> = {}): PublishInput {
  const envelope = (text: string) => ({ event_id: id, type: 't', payload: { text } });
  const attributeBytes = Object.entries(attributes).reduce((n, [k, v]) => n + k.length + v.length, 0);
  const base = encodeEnvelope(prepareEnvelope(envelope(''))).length + attributeBytes;
  return { envelope: envelope('x'.repeat(bytes - base)), attributes };
}

const sizesOf = (driver: RecordingDriver) => driver.publishCalls.map((call) => call.map((m) => m.eventId));

describe('publishBatch chunks by count and by bytes', () => {
  it('keeps each call within batch.publishBytes, counting attributes as maxBodyBytes does', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: { ...batchOf(10), publishBytes: 3_000 } } });
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    const receipts = await queue.publishBatch([
      eventOfSize('a', 1_000, { k: 'v' }),
      eventOfSize('b', 1_000),
      eventOfSize('c', 1_000),
      eventOfSize('d', 1_001),
      eventOfSize('e', 1_999),
    ]);
    expect(receipts.map((r) => r.sizeBytes)).toEqual([1_000, 1_000, 1_000, 1_001, 1_999]);
    expect(sizesOf(driver)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
  });

  it('cuts by count when the count comes first', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: { ...batchOf(2), publishBytes: 100_000 } } });
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    await queue.publishBatch(['a', 'b', 'c', 'd', 'e'].map((id) => eventOfSize(id, 500)));
    expect(sizesOf(driver)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('sends a message larger than the byte bound on its own', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: { ...batchOf(10), publishBytes: 1_000 } } });
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    await queue.publishBatch([eventOfSize('a', 400), eventOfSize('big', 5_000), eventOfSize('b', 400)]);
    expect(sizesOf(driver)).toEqual([['a'], ['big'], ['b']]);
  });

  it('counts the bridge attribute of a bridged publish', async () => {
    const driver = new RecordingDriver({
      capabilities: {
        batch: { ...batchOf(10), publishBytes: 2_000 },
        delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false },
      },
    });
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    // 1,000 bytes each as published; the bridge's attribute takes each past it.
    await queue.publishBatch([
      { ...eventOfSize('a', 1_000), delaySeconds: 86_400 },
      { ...eventOfSize('b', 1_000), delaySeconds: 86_400 },
    ]);
    expect(sizesOf(driver)).toEqual([['a'], ['b']]);
  });

  it('without publishBytes, chunks by count alone', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: batchOf(3) } });
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    await queue.publishBatch(['a', 'b', 'c', 'd'].map((id) => eventOfSize(id, 200_000)));
    expect(sizesOf(driver)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('refuses a manifest whose publishBytes is not a whole number of at least 1', () => {
    for (const publishBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        assertCapabilities(testCapabilities({ batch: { ...batchOf(10), publishBytes } }), 'fake'),
      ).toThrow(/batch\.publishBytes must be an integer >= 1/);
    }
  });
});
