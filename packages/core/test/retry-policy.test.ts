import {
  DEFAULT_REDELIVERY,
  DEFAULT_RETRY,
  nextRetry,
  QueueError,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
} from '@queueport/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const policy: RetryPolicy = {
  maxAttempts: 4,
  baseMs: 100,
  maxMs: 1_000,
  jitter: 0,
  retryAfterMinMs: 50,
  retryAfterMaxMs: 5_000,
};

describe('nextRetry: the one give-up rule', () => {
  it('retries before maxAttempts and gives up exactly at it', () => {
    expect(nextRetry(policy, 1)).toEqual({ giveUp: false, delayMs: 100, nextAttempt: 2 });
    expect(nextRetry(policy, 3)).toEqual({ giveUp: false, delayMs: 400, nextAttempt: 4 });
    expect(nextRetry(policy, 4)).toEqual({ giveUp: true });
    expect(nextRetry(policy, 5)).toEqual({ giveUp: true });
  });

  it('maxAttempts 1 never retries', () => {
    expect(nextRetry({ ...policy, maxAttempts: 1 }, 1)).toEqual({ giveUp: true });
  });

  it('gives up at maxAttempts even when a Retry-After asks for more', () => {
    expect(nextRetry(policy, 4, 1_000)).toEqual({ giveUp: true });
  });

  it('merges a Retry-After into the delay', () => {
    expect(nextRetry(policy, 1, 3_000)).toEqual({ giveUp: false, delayMs: 3_000, nextAttempt: 2 });
  });
});

describe('retryDelayMs: the one Retry-After merge', () => {
  it('lets a longer Retry-After win and a shorter one lose', () => {
    expect(retryDelayMs(1, policy, 2_000)).toBe(2_000);
    expect(retryDelayMs(3, policy, 60)).toBe(400);
  });

  it('clamps a Retry-After into [retryAfterMinMs, retryAfterMaxMs]', () => {
    expect(retryDelayMs(1, policy, 3_600_000)).toBe(5_000);
    expect(retryDelayMs(1, { ...policy, baseMs: 0, maxMs: 0 }, 0)).toBe(50);
    expect(retryDelayMs(1, { ...policy, baseMs: 0, maxMs: 0 }, -10)).toBe(50);
  });

  it('ignores a NaN or missing Retry-After', () => {
    expect(retryDelayMs(2, policy)).toBe(200);
    expect(retryDelayMs(2, policy, Number.NaN)).toBe(200);
  });

  it('is always max(backoff, clamped Retry-After)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: -1e6, max: 1e9, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, random) => {
          const jittered = { ...policy, jitter: 1 };
          const backoff = retryDelayMs(attempt, jittered, undefined, () => random);
          const delay = retryDelayMs(attempt, jittered, retryAfter, () => random);
          expect(delay).toBeGreaterThanOrEqual(backoff);
          expect(delay).toBeGreaterThanOrEqual(jittered.retryAfterMinMs);
          expect(delay).toBeLessThanOrEqual(Math.max(backoff, jittered.retryAfterMaxMs));
        },
      ),
    );
  });

  it('jitter only ever shortens the delay', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, jitter, random) => {
          const unjittered = retryDelayMs(attempt, policy);
          const jittered = retryDelayMs(attempt, { ...policy, jitter }, undefined, () => random);
          expect(jittered).toBeLessThanOrEqual(unjittered + 1e-9);
          expect(jittered).toBeGreaterThanOrEqual(unjittered * (1 - jitter) - 1e-9);
        },
      ),
    );
    expect(retryDelayMs(1, { ...policy, jitter: 1 }, undefined, () => 0)).toBe(0);
  });
});

describe('resolveRetryPolicy', () => {
  it('fills what is missing from the defaults, ignoring undefined values', () => {
    expect(resolveRetryPolicy({ maxAttempts: 2, baseMs: undefined }, DEFAULT_RETRY)).toEqual({
      ...DEFAULT_RETRY,
      maxAttempts: 2,
    });
    expect(resolveRetryPolicy(undefined, DEFAULT_REDELIVERY)).toEqual(DEFAULT_REDELIVERY);
  });

  it('does not change the defaults it fills from', () => {
    const defaults = { ...policy };
    resolveRetryPolicy({ maxAttempts: 9 }, defaults);
    expect(defaults).toEqual(policy);
  });

  it('names every problem at once', () => {
    let error: unknown;
    try {
      resolveRetryPolicy(
        { maxAttempts: 0, baseMs: -1, jitter: 2, retryAfterMinMs: 10, retryAfterMaxMs: 5 },
        DEFAULT_RETRY,
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QueueError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'retry' } });
    const { problems } = (error as QueueError).details as { problems: string[] };
    expect(problems).toEqual([
      'maxAttempts must be an integer ≥ 1',
      'baseMs must be a finite number ≥ 0',
      'jitter must be between 0 and 1',
      'retryAfterMaxMs must be ≥ retryAfterMinMs',
    ]);
  });

  it.each<[string, Partial<RetryPolicy>]>([
    ['fractional maxAttempts', { maxAttempts: 1.5 }],
    ['infinite maxMs', { maxMs: Number.POSITIVE_INFINITY }],
    ['maxMs below baseMs', { baseMs: 500, maxMs: 100 }],
    ['NaN jitter', { jitter: Number.NaN }],
    ['negative retryAfterMinMs', { retryAfterMinMs: -1 }],
  ])('refuses %s', (_name, partial) => {
    expect(() => resolveRetryPolicy(partial, DEFAULT_RETRY)).toThrow(/invalid retry policy/);
  });

  it('has a Retry-After window of [0, 60 s] for provider calls and up to 6 h for redeliveries', () => {
    expect(DEFAULT_RETRY).toMatchObject({ maxAttempts: 4, retryAfterMinMs: 0, retryAfterMaxMs: 60_000 });
    expect(DEFAULT_REDELIVERY).toMatchObject({ maxAttempts: 10, retryAfterMaxMs: 6 * 3_600_000 });
  });
});
