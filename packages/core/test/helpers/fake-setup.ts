import { type PublishInput, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { FakeDriver, type FakeDriverOptions } from './fake-driver';

/** A fake driver and the Queue over it, both on one VirtualClock. */
export function setup(options: Omit<FakeDriverOptions, 'clock'> = {}) {
  const clock = new VirtualClock();
  const driver = new FakeDriver({ ...options, clock });
  const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
  return { clock, driver, queue };
}

export function event(id: string, extra: Omit<PublishInput, 'envelope'> = {}): PublishInput {
  return { envelope: { event_id: id, type: 'test.event', payload: { id } }, ...extra };
}
