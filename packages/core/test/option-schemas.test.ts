import { type ConsumeOptions, Queue, type QueueOptions, type ReceiveOptions } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { rejection, thrown } from './helpers/queue-errors';
import { RecordingDriver, testCapabilities } from './helpers/recording-driver';

const bad = <T>(value: unknown) => value as T;

describe('new Queue(driver, options): every option checked at construction, naming the field', () => {
  const cases: Array<[string, unknown, string]> = [
    ['options that are not an object', null, 'options'],
    ['an unknown option (a typo)', { retries: { maxAttempts: 2 } }, 'retries'],
    ['retry that is not an object', { retry: 'fast' }, 'retry'],
    ['retry.maxAttempts as a string', { retry: { maxAttempts: '3' } }, 'retry.maxAttempts'],
    ['retry.maxAttempts of 0', { retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    ['retry.jitter as a string', { retry: { jitter: '0.5' } }, 'retry.jitter'],
    ['an unknown retry field', { retry: { maxAttempt: 3 } }, 'retry.maxAttempt'],
    [
      'limits.maxBodyBytes NaN (it disabled the size check)',
      { limits: { maxBodyBytes: Number.NaN } },
      'limits.maxBodyBytes',
    ],
    ['limits.maxBodyBytes 0', { limits: { maxBodyBytes: 0 } }, 'limits.maxBodyBytes'],
    ['limits.maxDelaySeconds negative', { limits: { maxDelaySeconds: -1 } }, 'limits.maxDelaySeconds'],
    ['limits.maxDelaySeconds NaN', { limits: { maxDelaySeconds: Number.NaN } }, 'limits.maxDelaySeconds'],
    ['a hook that is not a function', { hooks: { onRetry: 'log' } }, 'hooks.onRetry'],
    ['an unknown hook', { hooks: { onInvalid: () => {} } }, 'hooks.onInvalid'],
    ['a clock without sleep', { clock: { now: () => 0 } }, 'clock.sleep'],
    ['defaultLeaseSeconds as a string', { defaultLeaseSeconds: '30' }, 'defaultLeaseSeconds'],
    ['defaultLeaseSeconds past the manifest', { defaultLeaseSeconds: 50_000 }, 'defaultLeaseSeconds'],
  ];

  it.each(cases)('%s', (_name, options, field) => {
    const error = thrown(() => new Queue(new RecordingDriver(), bad<QueueOptions>(options)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.retryable).toBe(false);
    expect(error.details.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('names every problem at once', () => {
    const error = thrown(
      () =>
        new Queue(new RecordingDriver(), bad<QueueOptions>({ retry: { baseMs: -1 }, hooks: { onRetry: 1 } })),
    );
    expect(error.details.problems).toEqual(['retry.baseMs must be >= 0', 'hooks.onRetry must be a function']);
  });

  it('a driver that is not one is INVALID_ARGUMENT, not a TypeError', () => {
    expect(thrown(() => new Queue(bad(null))).details.field).toBe('driver');
    expect(thrown(() => new Queue(bad({ name: 'x', capabilities: testCapabilities() }))).message).toMatch(
      /driver\.publish must be a function/,
    );
    for (const name of ['', undefined, 7]) {
      const unnamed = Object.assign(new RecordingDriver(), { name });
      expect(thrown(() => new Queue(bad(unnamed))).message).toMatch(
        /driver\.name must be a non-empty string/,
      );
    }
  });

  it('accepts every documented option, undefined values and class instances', () => {
    const clock = new VirtualClock();
    const queue = new Queue(new RecordingDriver(), {
      retry: { maxAttempts: 2, baseMs: 1, maxMs: 2, jitter: 0, retryAfterMinMs: 0, retryAfterMaxMs: 5 },
      limits: { maxBodyBytes: 4_096, maxDelaySeconds: 60 },
      clock,
      hooks: { onRetry: () => {}, onInvalidMessage: () => {}, onBridgeError: () => {} },
      defaultLeaseSeconds: 10,
    });
    expect(queue.clock).toBe(clock);
    expect(queue.capabilities.maxBodyBytes).toBe(4_096);
    expect(() => new Queue(new RecordingDriver(), { retry: undefined, hooks: undefined })).not.toThrow();
  });

  it('keeps the cross-field retry check of resolveRetryPolicy', () => {
    const error = thrown(() => new Queue(new RecordingDriver(), { retry: { baseMs: 10, maxMs: 5 } }));
    expect(error.message).toMatch(/invalid retry policy: maxMs must be ≥ baseMs/);
    expect(error.details.field).toBe('retry');
  });
});

describe('queue.consume(handler, options): checked before the loop starts', () => {
  const cases: Array<[string, unknown, string]> = [
    ['options that are not an object', 'fast', 'options'],
    ['an unknown option', { concurency: 4 }, 'concurency'],
    ['concurrency 2.5', { concurrency: 2.5 }, 'concurrency'],
    ['concurrency 0', { concurrency: 0 }, 'concurrency'],
    ['concurrency NaN (it spun the loop on failing receives)', { concurrency: Number.NaN }, 'concurrency'],
    ['concurrency Infinity', { concurrency: Number.POSITIVE_INFINITY }, 'concurrency'],
    ['leaseSeconds 0 (an extension every instant)', { leaseSeconds: 0 }, 'leaseSeconds'],
    ['leaseSeconds past the manifest', { leaseSeconds: 50_000 }, 'leaseSeconds'],
    ['leaseSeconds as a string', { leaseSeconds: '30' }, 'leaseSeconds'],
    ['waitSeconds infinite', { waitSeconds: Number.POSITIVE_INFINITY }, 'waitSeconds'],
    ['waitSeconds negative', { waitSeconds: -1 }, 'waitSeconds'],
    [
      'waitSeconds of a nanosecond (a long poll that ends at once, and the loop spun)',
      { waitSeconds: 1e-9 },
      'waitSeconds',
    ],
    ['a signal that is not an AbortSignal', { signal: { aborted: false } }, 'signal'],
    ['onError that is not a function', { onError: 'console' }, 'onError'],
    ['onDeadLetter that is not a function', { onDeadLetter: {} }, 'onDeadLetter'],
    ['retry.maxAttempts 1.5', { retry: { maxAttempts: 1.5 } }, 'retry.maxAttempts'],
  ];

  // Closed in `finally`: where a bad option was accepted, the loop must not outlive the test.
  it.each(cases)('%s', async (_name, options, field) => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);
    try {
      const error = thrown(() => queue.consume(async () => {}, bad<ConsumeOptions>(options)));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details.field).toBe(field);
      expect(driver.receiveCalls).toEqual([]);
    } finally {
      await queue.close();
    }
  });

  it('a handler that is not a function', async () => {
    const queue = new Queue(new RecordingDriver());
    try {
      expect(thrown(() => queue.consume(bad('handler'), { waitSeconds: 0 })).details.field).toBe('handler');
    } finally {
      await queue.close();
    }
  });

  it("retry.maxAttempts above the provider's redrive names the field", async () => {
    const queue = new Queue(
      new RecordingDriver({ capabilities: { deadLetter: { move: true, redriveAfterReceives: 3 } } }),
    );
    try {
      expect(thrown(() => queue.consume(async () => {}, { retry: { maxAttempts: 5 } })).details.field).toBe(
        'retry.maxAttempts',
      );
    } finally {
      await queue.close();
    }
  });

  it('accepts the documented options', async () => {
    const queue = new Queue(new RecordingDriver());
    const consumer = queue.consume(async () => {}, {
      concurrency: 3,
      leaseSeconds: 0.5,
      waitSeconds: 0,
      signal: new AbortController().signal,
      retry: { maxAttempts: 2 },
      onDeadLetter: async () => {},
      onError: () => {},
    });
    await consumer.close();
    await queue.close();
  });
});

describe('queue.receive(options)', () => {
  const cases: Array<[string, unknown, string]> = [
    ['options that are not an object', null, 'options'],
    ['an unknown option', { max: 5 }, 'max'],
    ['maxMessages 1.5', { maxMessages: 1.5 }, 'maxMessages'],
    ['maxMessages 0', { maxMessages: 0 }, 'maxMessages'],
    ['waitSeconds as a string (was accepted)', { waitSeconds: '1' }, 'waitSeconds'],
    ['waitSeconds NaN', { waitSeconds: Number.NaN }, 'waitSeconds'],
    ['leaseSeconds NaN', { leaseSeconds: Number.NaN }, 'leaseSeconds'],
    ['a signal that is not an AbortSignal', { signal: 'stop' }, 'signal'],
  ];

  it.each(cases)('%s', async (_name, options, field) => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).receive(bad<ReceiveOptions>(options)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe(field);
    expect(driver.receiveCalls).toEqual([]);
  });

  it('reads each option once: a getter cannot pass the check and reach the driver changed', async () => {
    let reads = 0;
    const options = {
      get maxMessages() {
        return ++reads === 1 ? 1 : 1_000;
      },
    };
    const driver = new RecordingDriver();
    await new Queue(driver).receive(options);
    expect(driver.receiveCalls[0]!.maxMessages).toBe(1);
  });
});

describe('publish and releaseBatch entries', () => {
  it('an unknown field of a publish (delay instead of delaySeconds) is refused, not silently dropped', async () => {
    const driver = new RecordingDriver();
    const error = await rejection(
      new Queue(driver).publish(bad({ envelope: { event_id: 'e', type: 't', payload: 1 }, delay: 60 })),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe('inputs[0].delay');
    expect(driver.publishCalls).toEqual([]);
  });

  it.each([
    ['not an array', { delivery: 1 }, 'entries'],
    ['an entry that is null', [null], 'entries[0]'],
    ['an entry without a delivery', [{}], 'entries[0].delivery'],
    ['an unknown field in an entry', [{ delivery: 1, delay: 5 }], 'entries[0].delay'],
  ])('releaseBatch with %s: INVALID_ARGUMENT, not a TypeError', async (_name, entries, field) => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).releaseBatch(bad(entries)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.field).toBe(field);
    expect(driver.settleCalls).toEqual([]);
  });
});
