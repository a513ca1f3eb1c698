import { ABORTED, ABORTED_RECEIVE_TURNS, AbandonedTakes, untilAborted } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

/** A take the test ends by hand, as a provider's slow answer. */
function pendingTake<T>() {
  let resolve!: (value: readonly T[]) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<readonly T[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` settled within the turns the abort rule allows. */
async function settlesWithinRule(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < ABORTED_RECEIVE_TURNS && !settled; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return settled;
}

describe('AbandonedTakes', () => {
  it('answers what the take answers while the signal stays quiet, and gives nothing back', async () => {
    const takes = new AbandonedTakes();
    const givenBack: string[][] = [];
    const abort = new AbortController();
    const taken = await takes.unlessAborted(Promise.resolve(['a', 'b']), abort.signal, async (t) => {
      givenBack.push([...t]);
    });
    expect(taken).toEqual(['a', 'b']);
    await takes.drained();
    expect(givenBack).toEqual([]);
  });

  it('answers undefined within the rule once aborted, then gives back what the take yields later', async () => {
    const takes = new AbandonedTakes();
    const givenBack: string[][] = [];
    const abort = new AbortController();
    const take = pendingTake<string>();
    const answer = takes.unlessAborted(take.promise, abort.signal, async (t) => {
      givenBack.push([...t]);
    });
    abort.abort('stop');
    expect(await settlesWithinRule(answer)).toBe(true);
    expect(await answer).toBeUndefined();
    expect(givenBack).toEqual([]);
    take.resolve(['late']);
    await takes.drained();
    expect(givenBack).toEqual([['late']]);
  });

  it('treats a signal aborted before the call as abandoned at once', async () => {
    const takes = new AbandonedTakes();
    const givenBack: number[][] = [];
    const answer = await takes.unlessAborted(Promise.resolve([1]), AbortSignal.abort(), async (t) => {
      givenBack.push([...t]);
    });
    expect(answer).toBeUndefined();
    await takes.drained();
    expect(givenBack).toEqual([[1]]);
  });

  it('swallows a failed take or give-back of an abandoned receive, and drained() still ends', async () => {
    const takes = new AbandonedTakes();
    const failingTake = pendingTake<string>();
    const abort = new AbortController();
    const first = takes.unlessAborted(failingTake.promise, abort.signal, async () => undefined);
    const second = takes.unlessAborted(Promise.resolve(['x']), AbortSignal.abort(), async () => {
      throw new Error('provider gone');
    });
    abort.abort();
    expect(await first).toBeUndefined();
    expect(await second).toBeUndefined();
    failingTake.reject(new Error('statement failed'));
    await expect(takes.drained()).resolves.toBeUndefined();
  });

  it('lets a take that fails before any abort fail its receive', async () => {
    const takes = new AbandonedTakes();
    await expect(
      takes.unlessAborted(Promise.reject(new Error('refused')), new AbortController().signal, async () => 0),
    ).rejects.toThrow('refused');
  });

  it('gives back nothing for an abandoned take that took nothing', async () => {
    const takes = new AbandonedTakes();
    let calls = 0;
    await takes.unlessAborted(Promise.resolve([]), AbortSignal.abort(), async () => {
      calls++;
    });
    await takes.drained();
    expect(calls).toBe(0);
  });
});

describe("several signals: the receive's own and the driver's closing", () => {
  it('gives back what a take held when the second signal fires, and drained waits for it', async () => {
    const takes = new AbandonedTakes();
    const take = pendingTake<string>();
    const request = new AbortController();
    const closing = new AbortController();
    const givenBack: string[] = [];
    const answer = takes.unlessAborted(take.promise, [request.signal, undefined, closing.signal], (t) => {
      givenBack.push(...t);
    });
    closing.abort();
    expect(await settlesWithinRule(answer)).toBe(true);
    expect(await answer).toBeUndefined();
    take.resolve(['late']);
    await takes.drained();
    expect(givenBack).toEqual(['late']);
  });

  it('untilAborted answers the value, ABORTED once a signal fired, and the work when none is given', async () => {
    const quiet = new AbortController();
    await expect(untilAborted(Promise.resolve(7), [quiet.signal])).resolves.toBe(7);
    await expect(untilAborted(Promise.resolve(7), [quiet.signal, AbortSignal.abort()])).resolves.toBe(
      ABORTED,
    );
    await expect(untilAborted(Promise.reject(new Error('down')), undefined)).rejects.toThrow('down');
    const pending = new Promise<number>(() => {});
    const fired = new AbortController();
    const racing = untilAborted(pending, fired.signal);
    fired.abort();
    expect(await settlesWithinRule(racing)).toBe(true);
    await expect(racing).resolves.toBe(ABORTED);
  });
});
