import type { Clock, Delivery } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { LeaseKeeper } from '../src/consumer/lease-keeper';

/** A VirtualClock that counts the sleeps asked of it: one per timer armed. */
function countingClock() {
  const clock = new VirtualClock();
  let sleeps = 0;
  const counted: Clock = {
    now: () => clock.now(),
    sleep: (ms, signal) => {
      sleeps++;
      return clock.sleep(ms, signal);
    },
  };
  return { clock, counted, sleeps: () => sleeps };
}

function fakeDelivery(fail = false) {
  const extensions: number[] = [];
  const delivery = {
    extendLease: async (seconds: number) => {
      extensions.push(seconds);
      if (fail) throw new Error('lease lost');
    },
  } as unknown as Delivery;
  return { delivery, extensions };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('LeaseKeeper', () => {
  it('extends every held lease each half lease with one timer for all of them', async () => {
    const { clock, counted, sleeps } = countingClock();
    const keeper = new LeaseKeeper(counted, 30, () => {});
    const held = Array.from({ length: 100 }, () => fakeDelivery());
    const leases = held.map(({ delivery }) => keeper.hold(delivery));
    await clock.advance(15_000);
    expect(held.every(({ extensions }) => extensions.length === 1 && extensions[0] === 30)).toBe(true);
    await clock.advance(15_000);
    expect(held.every(({ extensions }) => extensions.length === 2)).toBe(true);
    // One sleep per wake-up, not per delivery.
    expect(sleeps()).toBeLessThanOrEqual(3);
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it('stops extending a released lease, and keeps no timer once nothing is held', async () => {
    const { clock, counted, sleeps } = countingClock();
    const keeper = new LeaseKeeper(counted, 10, () => {});
    const { delivery, extensions } = fakeDelivery();
    await keeper.hold(delivery).release();
    await turn();
    const armed = sleeps();
    await clock.advance(60_000);
    expect(extensions).toEqual([]);
    expect(sleeps()).toBe(armed);
  });

  it('reports a lost lease, aborts the signal (even one asked for later), and stops extending it', async () => {
    const { clock, counted } = countingClock();
    const lost: unknown[] = [];
    const keeper = new LeaseKeeper(counted, 10, (error) => lost.push(error));
    const failing = fakeDelivery(true);
    const early = keeper.hold(failing.delivery);
    const signalBefore = early.context.signal;
    await clock.advance(5_000);
    expect(lost).toHaveLength(1);
    expect(signalBefore.aborted).toBe(true);
    const other = fakeDelivery(true);
    const late = keeper.hold(other.delivery);
    await clock.advance(5_000);
    expect(late.context.signal.aborted).toBe(true);
    await clock.advance(20_000);
    expect(failing.extensions).toHaveLength(1);
    expect(other.extensions).toHaveLength(1);
  });
});
