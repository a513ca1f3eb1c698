import { type BackoffPolicy, decideOnFailure, isPermanentFailure, QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { testCapabilities } from './helpers/recording-driver';

const backoff: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000, jitter: 0 };
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
  it('dead-letters a permanent failure on its first delivery', () => {
    const decision = decideOnFailure(new QueueError('INVALID_ENVELOPE', 'bad'), 1, 10, backoff, wholeSeconds);
    expect(decision).toEqual({ action: 'dead-letter', reason: 'permanent failure: bad' });
  });

  it('dead-letters a retryable failure at maxDeliveries, releases it before', () => {
    expect(decideOnFailure(new Error('flaky'), 2, 3, backoff, wholeSeconds).action).toBe('release');
    expect(decideOnFailure(new Error('flaky'), 3, 3, backoff, wholeSeconds)).toEqual({
      action: 'dead-letter',
      reason: 'gave up after 3 deliveries: flaky',
    });
  });

  it('grows the release delay with the receive count', () => {
    const delays = [1, 2, 3, 4].map((n) => {
      const decision = decideOnFailure(new Error('x'), n, 10, backoff, wholeSeconds);
      return decision.action === 'release' ? decision.delaySeconds : Number.NaN;
    });
    expect(delays).toEqual([1, 2, 4, 8]);
  });

  it('rounds up to whole seconds unless the driver takes fractions', () => {
    const small: BackoffPolicy = { baseMs: 250, maxMs: 250, jitter: 0 };
    expect(decideOnFailure(new Error('x'), 1, 10, small, wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 1,
    });
    expect(decideOnFailure(new Error('x'), 1, 10, small, fractional)).toEqual({
      action: 'release',
      delaySeconds: 0.25,
    });
  });

  it('waits at least a retry-after, and never past the delay limit', () => {
    const limited = new QueueError('RATE_LIMITED', 'slow', { retryAfterSeconds: 30 });
    expect(decideOnFailure(limited, 1, 10, backoff, wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 30,
    });
    const capped = testCapabilities({ delay: { maxSeconds: 20, nativeMaxSeconds: 20, fractional: false } });
    expect(decideOnFailure(limited, 1, 10, backoff, capped)).toEqual({ action: 'release', delaySeconds: 20 });
  });

  it('releases at once with a zero backoff', () => {
    const zero: BackoffPolicy = { baseMs: 0, maxMs: 0, jitter: 0 };
    expect(decideOnFailure(new Error('x'), 5, 10, zero, wholeSeconds)).toEqual({
      action: 'release',
      delaySeconds: 0,
    });
  });
});
