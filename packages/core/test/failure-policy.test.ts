import {
  DEFAULT_REDELIVERY,
  decideOnFailure,
  isPermanentFailure,
  QueueError,
  type RetryPolicy,
} from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { testCapabilities } from './helpers/recording-driver';

const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({
  ...DEFAULT_REDELIVERY,
  maxAttempts: 10,
  baseMs: 1_000,
  maxMs: 60_000,
  jitter: 0,
  ...overrides,
});
const wholeSeconds = testCapabilities();
const fractional = testCapabilities({
  delay: { maxSeconds: 604_800, nativeMaxSeconds: 604_800, fractional: true },
});

describe('isPermanentFailure', () => {
  it('follows retryable on QueueError and on plain errors, defaulting to retry', () => {
    expect(isPermanentFailure(new QueueError('INVALID_ARGUMENT', 'x'))).toBe(true);
    expect(isPermanentFailure(new QueueError('UNAVAILABLE', 'x'))).toBe(false);
    expect(isPermanentFailure(new QueueError('INTERNAL', 'x', { retryable: true }))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('x'), { retryable: false }))).toBe(true);
    expect(isPermanentFailure(Object.assign(new Error('x'), { retryable: 'no' }))).toBe(false);
    expect(isPermanentFailure(new Error('x'))).toBe(false);
    expect(isPermanentFailure('x')).toBe(false);
    expect(isPermanentFailure(null)).toBe(false);
  });
});

describe('decideOnFailure', () => {
  it('gives up on a permanent failure on its first delivery', () => {
    const decision = decideOnFailure(new QueueError('INVALID_ENVELOPE', 'bad'), 1, policy(), wholeSeconds);
    expect(decision).toEqual({ action: 'give-up', reason: 'permanent failure: bad' });
  });

  it('gives up on a retryable failure at maxAttempts deliveries, releases it before', () => {
    const three = policy({ maxAttempts: 3 });
    expect(decideOnFailure(new Error('flaky'), 2, three, wholeSeconds).action).toBe('release');
    expect(decideOnFailure(new Error('flaky'), 3, three, wholeSeconds)).toEqual({
      action: 'give-up',
      reason: 'gave up after 3 deliveries: flaky',
    });
  });

  it('grows the release delay with the receive count', () => {
    const delays = [1, 2, 3, 4].map((n) => {
      const decision = decideOnFailure(new Error('x'), n, policy(), wholeSeconds);
      return decision.action === 'release' ? decision.delaySeconds : Number.NaN;
    });
    expect(delays).toEqual([1, 2, 4, 8]);
  });

  it('treats a driver that cannot count (receiveCount 0) as a first delivery', () => {
    expect(decideOnFailure(new Error('x'), 0, policy({ maxAttempts: 2 }), wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 1,
    });
  });

  it('rounds up to whole seconds unless the driver takes fractions', () => {
    const small = policy({ baseMs: 250, maxMs: 250 });
    expect(decideOnFailure(new Error('x'), 1, small, wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 1,
    });
    expect(decideOnFailure(new Error('x'), 1, small, fractional)).toEqual({
      action: 'release',
      delaySeconds: 0.25,
    });
  });

  it('waits at least a retry-after, and never past the delay limit', () => {
    const limited = new QueueError('RATE_LIMITED', 'slow', { retryAfterSeconds: 30 });
    expect(decideOnFailure(limited, 1, policy(), wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 30,
    });
    const capped = testCapabilities({ delay: { maxSeconds: 20, nativeMaxSeconds: 20, fractional: false } });
    expect(decideOnFailure(limited, 1, policy(), capped)).toEqual({ action: 'release', delaySeconds: 20 });
  });

  it("clamps a retry-after to the policy's retryAfterMaxMs", () => {
    const limited = new QueueError('RATE_LIMITED', 'slow', { retryAfterSeconds: 86_400 });
    expect(decideOnFailure(limited, 1, policy({ retryAfterMaxMs: 120_000 }), wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 120,
    });
  });

  it('still gives up at maxAttempts when the error asks for a retry-after', () => {
    const limited = new QueueError('RATE_LIMITED', 'slow', { retryAfterSeconds: 5 });
    expect(decideOnFailure(limited, 3, policy({ maxAttempts: 3 }), wholeSeconds).action).toBe('give-up');
  });

  it('uses the random source for jitter', () => {
    const jittered = policy({ baseMs: 10_000, maxMs: 10_000, jitter: 1 });
    expect(decideOnFailure(new Error('x'), 1, jittered, wholeSeconds, () => 0.5)).toEqual({
      action: 'release',
      delaySeconds: 5,
    });
  });

  it('releases at once with a zero backoff', () => {
    const zero = policy({ baseMs: 0, maxMs: 0 });
    expect(decideOnFailure(new Error('x'), 5, zero, wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 0,
    });
  });
});
