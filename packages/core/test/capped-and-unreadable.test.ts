import { prepareEnvelope, Queue, QueueError, type QueueEvents } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { batchOf, RecordingDriver } from './helpers/recording-driver';

describe('maxMessages past batch.receive is capped, not refused', () => {
  it('asks the driver for batch.receive and emits capped', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: batchOf(1) } });
    const queue = new Queue(driver);
    const capped: QueueEvents['capped'][] = [];
    queue.on('capped', (event) => capped.push(event));
    await queue.receive({ maxMessages: 10 });
    expect(driver.receiveCalls.map((r) => r.maxMessages)).toEqual([1]);
    expect(capped).toEqual([{ option: 'maxMessages', requested: 10, applied: 1, source: 'receive' }]);
  });
});

const envelope = prepareEnvelope({ event_id: 'evt_unreadable_1', type: 'test.unreadable', payload: {} });
const callerError = new Error('the caller’s own failure');
function throwingGetter(key: string): Record<string, unknown> {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw callerError;
    },
  });
}
function ownKeysThrows(): object {
  return new Proxy(
    {},
    {
      ownKeys() {
        throw callerError;
      },
    },
  );
}

describe('an argument whose reading throws is a typed INVALID_ARGUMENT', () => {
  const queue = new Queue(new RecordingDriver());
  it.each([
    [
      'an attribute getter that throws',
      () => queue.publish({ envelope, attributes: throwingGetter('x') as never }),
    ],
    [
      'attributes whose ownKeys throws',
      () => queue.publish({ envelope, attributes: ownKeysThrows() as never }),
    ],
    ['a publish input getter that throws', () => queue.publish(throwingGetter('envelope') as never)],
    ['a publish input whose ownKeys throws', () => queue.publish(ownKeysThrows() as never)],
    [
      'a batch whose reads throw',
      () =>
        queue.publishBatch(
          new Proxy([], {
            get() {
              throw callerError;
            },
          }) as never,
        ),
    ],
    ['receive options whose ownKeys throws', () => queue.receive(ownKeysThrows() as never)],
    ['a receive option getter that throws', () => queue.receive(throwingGetter('waitSeconds') as never)],
    [
      'queue options whose ownKeys throws',
      async () => new Queue(new RecordingDriver(), ownKeysThrows() as never),
    ],
    [
      'a nested retry whose ownKeys throws',
      async () => new Queue(new RecordingDriver(), { retry: ownKeysThrows() } as never),
    ],
    [
      'consume options whose ownKeys throws',
      async () => queue.consume(async () => {}, ownKeysThrows() as never),
    ],
  ])('%s', async (_name, run) => {
    const error = await Promise.resolve()
      .then(run as () => unknown)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(QueueError);
    expect(error).not.toBe(callerError);
    expect((error as QueueError).code).toBe('INVALID_ARGUMENT');
    expect((error as QueueError).details?.field).toBeTypeOf('string');
  });

  it('sends nothing when an attribute cannot be read', async () => {
    const driver = new RecordingDriver();
    await new Queue(driver).publish({ envelope, attributes: throwingGetter('x') as never }).catch(() => {});
    expect(driver.publishCalls).toEqual([]);
  });
});
