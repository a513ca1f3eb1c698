import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';

describe('VirtualClock', () => {
  it('starts where told and moves only when advanced', async () => {
    const clock = new VirtualClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advance(250);
    expect(clock.now()).toBe(1_250);
    await clock.advanceTo(1_000);
    expect(clock.now()).toBe(1_250);
  });

  it('wakes sleepers in due order, each seeing its own due time', async () => {
    const clock = new VirtualClock(0);
    const woke: Array<[string, number]> = [];
    const sleep = (name: string, ms: number) => clock.sleep(ms).then(() => woke.push([name, clock.now()]));
    const all = Promise.all([sleep('c', 300), sleep('a', 100), sleep('b', 200), sleep('a2', 100)]);
    await clock.advance(150);
    expect(woke).toEqual([
      ['a', 100],
      ['a2', 100],
    ]);
    await clock.advance(1_000);
    await all;
    expect(woke.map(([name]) => name)).toEqual(['a', 'a2', 'b', 'c']);
    expect(woke.map(([, at]) => at)).toEqual([100, 100, 200, 300]);
    expect(clock.now()).toBe(1_150);
  });

  it('wakes sleepers that woken code schedules within the same advance', async () => {
    const clock = new VirtualClock(0);
    const ticks: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 5; i++) {
        await clock.sleep(10);
        ticks.push(clock.now());
      }
    })();
    await clock.advance(50);
    await loop;
    expect(ticks).toEqual([10, 20, 30, 40, 50]);
  });

  it('resolves a zero sleep at once', async () => {
    const clock = new VirtualClock(0);
    await clock.sleep(0);
    expect(clock.now()).toBe(0);
  });

  it('rejects a sleep with the abort reason, before or during the wait', async () => {
    const clock = new VirtualClock(0);
    const pre = new AbortController();
    pre.abort(new Error('already'));
    await expect(clock.sleep(10, pre.signal)).rejects.toThrow('already');

    const controller = new AbortController();
    let resolved = false;
    const sleeping = clock.sleep(100, controller.signal).then(() => {
      resolved = true;
    });
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await clock.advance(200);
    expect(resolved).toBe(false);
  });

  it('refuses to move backwards or by NaN', async () => {
    const clock = new VirtualClock(0);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
  });
});
