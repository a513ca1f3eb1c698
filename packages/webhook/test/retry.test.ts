import { nextRetry, type RetryPolicy, retryDelayMs } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, resolveRetrySchedule } from '../src';

// The policy math (backoff growth, jitter, the Retry-After merge, giving up) is core's and is
// tested there once; this file covers the webhook's own value of it (the header parser is core's, tested there).

describe('Retry-After bounds a destination can express', () => {
  it('the Svix-style clamp to [base, 2 × base]', () => {
    const base = 300_000;
    const policy = resolveRetrySchedule({
      jitter: 0,
      baseMs: 0,
      maxMs: 0,
      retryAfterMinMs: base,
      retryAfterMaxMs: 2 * base,
    });
    expect(retryDelayMs(1, policy, 10_000)).toBe(base);
    expect(retryDelayMs(1, policy, 3_600_000)).toBe(2 * base);
  });
});

describe('retry schedule', () => {
  const steady: RetryPolicy = { ...DEFAULT_RETRY_SCHEDULE, jitter: 0 };

  it('the default starts at 5 s, doubles, caps at 2 h, and gives up after 15 attempts (~8.8 h)', () => {
    const delays: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const decision = nextRetry(steady, attempt);
      if (decision.giveUp) {
        expect(attempt).toBe(15);
        break;
      }
      expect(decision.nextAttempt).toBe(attempt + 1);
      delays.push(decision.delayMs);
    }
    expect(delays.slice(0, 4)).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(delays.at(-1)).toBe(2 * 3600 * 1000);
    expect(delays).toHaveLength(14);
    const hours = delays.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(8.5);
    expect(hours).toBeLessThan(9);
  });

  it('uses the retry-after carried by a 429 outcome', () => {
    expect(nextRetry(steady, 1, 7000)).toEqual({ giveUp: false, delayMs: 7000, nextAttempt: 2 });
  });

  it('refuses a nonsensical policy', () => {
    expect(() => resolveRetrySchedule({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveRetrySchedule({ baseMs: 10, maxMs: 5 })).toThrow(/maxMs/);
    expect(() => resolveRetrySchedule({ jitter: 2 })).toThrow(/jitter/);
    expect(() => resolveRetrySchedule({ retryAfterMinMs: 10, retryAfterMaxMs: 1 })).toThrow(
      /retryAfterMaxMs/,
    );
    expect(resolveRetrySchedule({ maxAttempts: 3 })).toEqual({ ...DEFAULT_RETRY_SCHEDULE, maxAttempts: 3 });
  });
});

describe("a destination's partial schedule", () => {
  it("is filled from the worker's policy, then the webhook default", () => {
    const worker = resolveRetrySchedule({ maxAttempts: 5 });
    expect(resolveRetrySchedule({ jitter: 0 }, worker)).toEqual({
      ...DEFAULT_RETRY_SCHEDULE,
      maxAttempts: 5,
      jitter: 0,
    });
    expect(nextRetry(resolveRetrySchedule({ jitter: 0 }), 1)).toEqual({
      giveUp: false,
      delayMs: 5000,
      nextAttempt: 2,
    });
    expect(nextRetry(resolveRetrySchedule({ jitter: 0, maxAttempts: 3 }), 3)).toEqual({ giveUp: true });
    expect(nextRetry(resolveRetrySchedule(undefined), 15)).toEqual({ giveUp: true });
  });

  it('honours a retry-after longer than the backoff', () => {
    expect(nextRetry(resolveRetrySchedule({ jitter: 0 }), 1, 60_000)).toEqual({
      giveUp: false,
      delayMs: 60_000,
      nextAttempt: 2,
    });
  });
});
