import type { BackoffPolicy, Clock, RetryPolicy } from '@queueport/core';
import { normalizeError, QueueError } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Internal to core (the webhook worker and the Queue share them); not part of any entry point.
import { backoffDelay, withRetry } from '../src/retry';

describe('backoffDelay', () => {
  const noJitter: BackoffPolicy = { baseMs: 100, maxMs: 5_000, jitter: 0 };

  it('starts at baseMs and doubles with jitter 0', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, noJitter));
    expect(delays[0]).toBe(noJitter.baseMs);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBe(delays[i - 1]! * 2);
  });

  it('caps at maxMs', () => {
    expect(backoffDelay(7, noJitter)).toBe(noJitter.maxMs);
    expect(backoffDelay(1_000, noJitter)).toBe(noJitter.maxMs);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, noJitter)).toBe(noJitter.maxMs);
  });

  it('treats attempts below 1 as the first', () => {
    expect(backoffDelay(0, noJitter)).toBe(noJitter.baseMs);
    expect(backoffDelay(-3, noJitter)).toBe(noJitter.baseMs);
  });

  it('uses the random source for the jittered part', () => {
    const policy = { baseMs: 1_000, maxMs: 10_000, jitter: 0.5 };
    expect(backoffDelay(1, policy, () => 0)).toBe(500);
    expect(backoffDelay(1, policy, () => 0.5)).toBe(750);
  });

  it('stays within [0, ceiling] with full jitter, for any attempt and policy', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseMs, maxMs, random) => {
          const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
          const delay = backoffDelay(attempt, { baseMs, maxMs, jitter: 1 }, () => random);
          return Number.isFinite(delay) && delay >= 0 && delay <= ceiling;
        },
      ),
    );
  });

  it('never exceeds maxMs and never falls below the unjittered part, for any jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseMs, maxMs, jitter, random) => {
          const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
          const delay = backoffDelay(attempt, { baseMs, maxMs, jitter }, () => random);
          // ceiling*(1-j) + ceiling*j*r rounds up to one ulp past maxMs for tiny jitters
          // (e.g. [1, 1246, 1246, 7.0e-15, 0.9999999999999979]): far below any clock's resolution.
          return delay <= maxMs + 1e-9 && delay >= ceiling * (1 - jitter) - 1e-9;
        },
      ),
    );
  });
});

/** A clock that records every sleep it is asked for and returns at once. */
class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  now(): number {
    return 0;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
  }
}

const identity = (error: unknown) => normalizeError(error, 'test');
const policy: RetryPolicy = {
  baseMs: 100,
  maxMs: 1_000,
  jitter: 0,
  maxAttempts: 4,
  retryAfterMinMs: 0,
  retryAfterMaxMs: 60_000,
};

describe('withRetry', () => {
  it('returns the first success, passing the attempt number', async () => {
    const attempts: number[] = [];
    const result = await withRetry(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 3) throw new QueueError('UNAVAILABLE', 'down');
        return 'ok';
      },
      identity,
      policy,
      { clock: new RecordingClock() },
    );
    expect(result).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('retries a retryable error up to maxAttempts, then throws it', async () => {
    const clock = new RecordingClock();
    const retries: number[] = [];
    let calls = 0;
    const failure = new QueueError('UNAVAILABLE', 'down');
    await expect(
      withRetry(
        async () => {
          calls++;
          throw failure;
        },
        identity,
        policy,
        { clock, onRetry: (info) => retries.push(info.attempt) },
      ),
    ).rejects.toBe(failure);
    expect(calls).toBe(policy.maxAttempts);
    expect(retries).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([100, 200, 400]);
  });

  it('stops at once on a non-retryable error', async () => {
    const clock = new RecordingClock();
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new QueueError('UNAUTHORIZED', 'no');
        },
        identity,
        policy,
        { clock },
      ),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(calls).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('normalises raw errors before deciding', async () => {
    const clock = new RecordingClock();
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls++;
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      },
      identity,
      { ...policy, maxAttempts: 2 },
      { clock },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('UNAVAILABLE');
    expect(calls).toBe(2);
  });

  it('maxAttempts 1 disables retries', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new QueueError('UNAVAILABLE', 'down');
        },
        identity,
        { ...policy, maxAttempts: 1 },
        { clock: new RecordingClock() },
      ),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(calls).toBe(1);
  });

  it('honours retryAfterSeconds as a minimum delay', async () => {
    const clock = new RecordingClock();
    let calls = 0;
    await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw new QueueError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 3 });
        if (calls === 2) throw new QueueError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 0.05 });
      },
      identity,
      policy,
      { clock },
    );
    // 3 s beats the computed 100 ms; the computed 200 ms beats a 50 ms retry-after.
    expect(clock.sleeps).toEqual([3_000, 200]);
  });

  it("clamps a retry-after into the policy's [retryAfterMinMs, retryAfterMaxMs]", async () => {
    const clock = new RecordingClock();
    let calls = 0;
    await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw new QueueError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 3_600 });
      },
      identity,
      { ...policy, retryAfterMinMs: 500, retryAfterMaxMs: 2_000 },
      { clock },
    );
    expect(clock.sleeps).toEqual([2_000]);
  });

  it('waits on the given clock: nothing happens until virtual time passes', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const done = withRetry(
      async () => {
        calls++;
        if (calls === 1) throw new QueueError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 60 });
        return calls;
      },
      identity,
      policy,
      { clock },
    );
    await clock.advance(59_999);
    expect(calls).toBe(1);
    await clock.advance(1);
    await expect(done).resolves.toBe(2);
  });

  it('does not retry once the signal is aborted, and an abort ends the wait', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    let calls = 0;
    const done = withRetry(
      async () => {
        calls++;
        throw new QueueError('UNAVAILABLE', 'down');
      },
      identity,
      { ...policy, maxAttempts: 10 },
      { clock, signal: controller.signal },
    );
    await clock.advance(0);
    expect(calls).toBe(1);
    controller.abort(new Error('stop'));
    await expect(done).rejects.toThrow('stop');
    expect(calls).toBe(1);

    let afterAbort = 0;
    await expect(
      withRetry(
        async () => {
          afterAbort++;
          throw new QueueError('UNAVAILABLE', 'down');
        },
        identity,
        policy,
        { clock, signal: controller.signal },
      ),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(afterAbort).toBe(1);
  });
});
