import { Queue, type QueueEvents } from '@queueport/core';
import type { DriverMessage, ReceiveRequest } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { RecordingDriver } from './helpers/recording-driver';

/** Waits out each long poll on the virtual clock, so a consumer over it never spins. */
class PollingDriver extends RecordingDriver {
  constructor(
    readonly clock: VirtualClock,
    longPollMaxSeconds: number,
  ) {
    super({ capabilities: { longPollMaxSeconds } });
  }

  override async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.receiveCalls.push(request);
    await this.clock.sleep(request.waitSeconds * 1000, request.signal).catch(() => {});
    return [];
  }
}

describe('receive: waitSeconds is capped at longPollMaxSeconds', () => {
  it.each([
    [5, 5.5],
    [0, 0.5],
    [60, 21],
  ])('longPollMaxSeconds %s caps a wait of %s s and says so', async (max, wait) => {
    const driver = new RecordingDriver({ capabilities: { longPollMaxSeconds: max } });
    const queue = new Queue(driver);
    const capped: QueueEvents['capped'][] = [];
    queue.on('capped', (event) => capped.push(event));
    await queue.receive({ waitSeconds: wait });
    // The portable limit (20 s) narrows a provider's longer maximum.
    const limit = queue.capabilities.longPollMaxSeconds;
    expect(limit).toBe(Math.min(max, 20));
    expect(driver.receiveCalls.map((r) => r.waitSeconds)).toEqual([limit]);
    expect(capped).toEqual([{ option: 'waitSeconds', requested: wait, applied: limit, source: 'receive' }]);
  });

  it('passes a wait at the bound through without a capped event', async () => {
    const driver = new RecordingDriver({ capabilities: { longPollMaxSeconds: 5 } });
    const queue = new Queue(driver);
    const capped: unknown[] = [];
    queue.on('capped', (event) => capped.push(event));
    await queue.receive({ waitSeconds: 5 });
    expect(driver.receiveCalls.map((r) => r.waitSeconds)).toEqual([5]);
    expect(capped).toEqual([]);
  });
});

describe('consume: an explicit wait past the provider maximum is capped, not refused', () => {
  it.each([
    [0, 1],
    [5, 20],
  ])('longPollMaxSeconds %s, waitSeconds %s', async (max, wait) => {
    const clock = new VirtualClock();
    const driver = new PollingDriver(clock, max);
    const queue = new Queue(driver, { clock });
    const capped: QueueEvents['capped'][] = [];
    queue.on('capped', (event) => capped.push(event));
    const consumer = queue.consume(async () => {}, { waitSeconds: wait });
    expect(consumer.settings.waitSeconds).toBe(max);
    expect(capped).toEqual([{ option: 'waitSeconds', requested: wait, applied: max, source: 'consume' }]);
    await clock.advance(0);
    await consumer.close();
    expect(driver.receiveCalls.every((r) => r.waitSeconds === max)).toBe(true);
    // Capped once at start: the consumer's receives ask for what the provider allows.
    expect(capped).toHaveLength(1);
  });
});

describe('consume: the default wait stays within longPollMaxSeconds', () => {
  it.each([
    [20, 1],
    [0.5, 0.5],
    [0, 0],
  ])('longPollMaxSeconds %s: polls with %s s', async (max, expected) => {
    const clock = new VirtualClock();
    const driver = new PollingDriver(clock, max);
    const queue = new Queue(driver, { clock });
    const errors: unknown[] = [];
    const consumer = queue.consume(async () => {}, { onError: (error) => errors.push(error) });
    await clock.advance(0);
    await consumer.close();
    expect(errors).toEqual([]);
    expect(driver.receiveCalls.length).toBeGreaterThan(0);
    expect(driver.receiveCalls[0]!.waitSeconds).toBe(expected);
    expect(driver.receiveCalls.every((r) => r.waitSeconds <= max)).toBe(true);
  });
});
