import { Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { event, setup } from './helpers/setup';

/** True once `promise` has settled; lets a test check "still waiting" without timing anything. */
function tracked<T>(promise: Promise<T>) {
  const state = { settled: false };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

describe('long-poll receive', () => {
  it('waits, then wakes when a message is published, without the clock moving', async () => {
    const { queue, clock } = setup();
    const receiving = queue.receive({ waitSeconds: 20 });
    const state = tracked(receiving);
    await clock.advance(0);
    expect(state.settled).toBe(false);
    const start = clock.now();
    await queue.publish(event('e1'));
    const deliveries = await receiving;
    expect(deliveries.map((d) => d.envelope.event_id)).toEqual(['e1']);
    expect(clock.now()).toBe(start);
  });

  it('returns [] when the wait runs out', async () => {
    const { queue, clock } = setup();
    const receiving = queue.receive({ waitSeconds: 5 });
    const state = tracked(receiving);
    await clock.advance(4_999);
    expect(state.settled).toBe(false);
    await clock.advance(1);
    expect(await receiving).toEqual([]);
  });

  it('wakes when a delayed message becomes due during the wait', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1', { delaySeconds: 3 }));
    const receiving = queue.receive({ waitSeconds: 20 });
    const state = tracked(receiving);
    await clock.advance(2_999);
    expect(state.settled).toBe(false);
    await clock.advance(1);
    expect((await receiving).map((d) => d.envelope.event_id)).toEqual(['e1']);
  });

  it('wakes when a lease runs out during the wait', async () => {
    const { queue, clock } = setup();
    await queue.publish(event('e1'));
    await queue.receive({ leaseSeconds: 2 });
    const receiving = queue.receive({ waitSeconds: 20 });
    await clock.advance(2_000);
    expect((await receiving).map((d) => d.receiveCount)).toEqual([2]);
  });

  it('returns [] when the signal aborts', async () => {
    const { queue, clock } = setup();
    const controller = new AbortController();
    const receiving = queue.receive({ waitSeconds: 20, signal: controller.signal });
    const state = tracked(receiving);
    await clock.advance(1_000);
    expect(state.settled).toBe(false);
    controller.abort();
    expect(await receiving).toEqual([]);
    // Nothing was leased by the aborted receive.
    await queue.publish(event('e1'));
    expect((await queue.receive()).map((d) => d.receiveCount)).toEqual([1]);
  });

  it('an aborted receive takes nothing, even a message published in the same tick as the abort', async () => {
    const { queue, clock } = setup();
    const controller = new AbortController();
    const receiving = queue.receive({ waitSeconds: 20, signal: controller.signal });
    await clock.advance(0);
    controller.abort();
    const publishing = queue.publish(event('e1'));
    expect(await receiving).toEqual([]);
    await publishing;
    expect((await queue.receive()).map((d) => d.receiveCount)).toEqual([1]);
  });

  it('an already aborted signal takes nothing', async () => {
    const { queue } = setup();
    await queue.publish(event('e1'));
    expect(await queue.receive({ signal: AbortSignal.abort() })).toEqual([]);
    expect((await queue.receive()).map((d) => d.receiveCount)).toEqual([1]);
  });

  it('returns [] when the queue closes', async () => {
    const { queue, clock } = setup();
    const receiving = queue.receive({ waitSeconds: 20 });
    await clock.advance(0);
    await queue.close();
    expect(await receiving).toEqual([]);
  });

  it('works on the system clock too', async () => {
    const queue = new Queue(new MemoryDriver());
    const receiving = queue.receive({ waitSeconds: 20 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await queue.publish(event('e1'));
    expect((await receiving).map((d) => d.envelope.event_id)).toEqual(['e1']);
    await queue.close();
  });
});
