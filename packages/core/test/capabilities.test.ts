import {
  assertCapabilities,
  type Capabilities,
  effectiveCapabilities,
  Queue,
  QueueError,
} from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { RecordingDriver, testCapabilities } from './helpers/recording-driver';

function problemsOf(caps: Capabilities): string {
  try {
    assertCapabilities(caps, 'broken');
  } catch (error) {
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('INVALID_ARGUMENT');
    return (error as QueueError).message;
  }
  throw new Error('expected assertCapabilities to throw');
}

describe('assertCapabilities', () => {
  it('accepts a consistent manifest', () => {
    expect(() => assertCapabilities(testCapabilities(), 'ok')).not.toThrow();
    expect(() =>
      assertCapabilities(testCapabilities({ dedupe: { kind: 'window', windowSeconds: 300 } }), 'ok'),
    ).not.toThrow();
  });

  it.each<[string, Partial<Capabilities>, string]>([
    ['maxBodyBytes 0', { maxBodyBytes: 0 }, 'maxBodyBytes must be a positive number'],
    ['maxBodyBytes NaN', { maxBodyBytes: Number.NaN }, 'maxBodyBytes must be a positive number'],
    ['batchMax 0', { batchMax: 0 }, 'batchMax must be a positive number'],
    [
      'retention Infinity',
      { retentionSeconds: Number.POSITIVE_INFINITY },
      'retentionSeconds must be a positive number',
    ],
    [
      'negative delay max',
      { delay: { maxSeconds: -1, nativeMaxSeconds: -1, fractional: false } },
      'delay.maxSeconds must be >= 0',
    ],
    [
      'native delay above the max',
      { delay: { maxSeconds: 900, nativeMaxSeconds: 901, fractional: false } },
      'nativeMaxSeconds exceeds',
    ],
    ['lease min above max', { leaseSeconds: { min: 10, max: 5 } }, 'leaseSeconds must satisfy'],
    ['negative lease min', { leaseSeconds: { min: -1, max: 5 } }, 'leaseSeconds must satisfy'],
    [
      'a zero dedupe window',
      { dedupe: { kind: 'window', windowSeconds: 0 } },
      'dedupe.windowSeconds must be a positive number',
    ],
  ])('rejects %s', (_name, overrides, problem) => {
    const message = problemsOf(testCapabilities(overrides));
    expect(message).toContain('broken');
    expect(message).toContain(problem);
  });

  it('names every problem at once', () => {
    const message = problemsOf(testCapabilities({ batchMax: 0, maxBodyBytes: -5 }));
    expect(message).toContain('batchMax');
    expect(message).toContain('maxBodyBytes');
  });

  it('is enforced when a Queue wraps the driver', () => {
    expect(() => new Queue(new RecordingDriver({ capabilities: { batchMax: 0 } }))).toThrow(
      /batchMax must be a positive number/,
    );
  });

  it('refuses a default lease outside the manifest', () => {
    const driver = new RecordingDriver({ capabilities: { leaseSeconds: { min: 1, max: 60 } } });
    expect(() => new Queue(driver, { defaultLeaseSeconds: 61 })).toThrow(QueueError);
    expect(new Queue(driver).capabilities.leaseSeconds.max).toBe(60);
  });
});

describe('effectiveCapabilities', () => {
  it('narrows only the body and delay limits and copies the rest', () => {
    const driver = testCapabilities({
      maxBodyBytes: 2_000_000,
      delay: { maxSeconds: 10_000_000, nativeMaxSeconds: 900, fractional: true },
      ordering: 'fifo-per-group',
    });
    const effective = effectiveCapabilities(driver);
    expect(effective).toEqual({
      ...driver,
      maxBodyBytes: 262_144,
      delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: true },
    });
    expect(driver.maxBodyBytes).toBe(2_000_000);
  });

  it('applies tighter application limits', () => {
    const effective = effectiveCapabilities(testCapabilities(), { maxBodyBytes: 1_024, maxDelaySeconds: 0 });
    expect(effective.maxBodyBytes).toBe(1_024);
    expect(effective.delay.maxSeconds).toBe(0);
  });
});
