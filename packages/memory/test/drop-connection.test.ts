import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { dropMemoryConnection, MemoryDriver, memoryAdapter } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { event } from './helpers/setup';

function setup() {
  const clock = new VirtualClock();
  const driver = new MemoryDriver({ clock });
  return { clock, driver, queue: new Queue(driver, { clock, retry: { maxAttempts: 1 } }) };
}

describe('a dropped connection (simulated)', () => {
  it('makes every earlier receipt stale and redelivers the leased message when its lease ends', async () => {
    const { clock, driver, queue } = setup();
    await queue.publish(event('e1'));
    const [before] = await queue.receive({ leaseSeconds: 30 });
    driver.dropConnection();
    await expect(before!.ack()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(await queue.receive()).toEqual([]);
    await clock.advance(30_000);
    const [after] = await queue.receive({ leaseSeconds: 30 });
    expect(after?.envelope.event_id).toBe('e1');
    expect(after?.receiveCount).toBe(2);
    await after!.ack();
    expect(await queue.receive()).toEqual([]);
  });

  it('ends a waiting long poll empty, and the next receive works', async () => {
    const { driver, queue } = setup();
    const polling = queue.receive({ waitSeconds: 20 });
    await new Promise((resolve) => setImmediate(resolve));
    driver.dropConnection();
    expect(await polling).toEqual([]);
    await queue.publish(event('e2'));
    expect((await queue.receive()).map((d) => d.envelope.event_id)).toEqual(['e2']);
  });

  it('is reached through a memory:// handle, and refuses any other driver', async () => {
    const clock = new VirtualClock();
    const name = `drop-${Math.random().toString(36).slice(2, 10)}`;
    const handle = await memoryAdapter.open(new URL(`memory://${name}`), { clock });
    const queue = new Queue(handle, { clock });
    await queue.publish(event('e3'));
    const [before] = await queue.receive({ leaseSeconds: 30 });
    await dropMemoryConnection(handle);
    await expect(before!.ack()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    const stranger = { ...handle };
    await expect(dropMemoryConnection(stranger)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
