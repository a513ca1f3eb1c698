import { Queue } from '@queueport/core';
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

describe('receive: waitSeconds is bounded by longPollMaxSeconds', () => {
  it.each([
    [5, 5.5],
    [0, 0.5],
    [60, 21],
  ])('longPollMaxSeconds %s refuses a wait of %s s without calling the driver', async (max, wait) => {
    const driver = new RecordingDriver({ capabilities: { longPollMaxSeconds: max } });
    await expect(new Queue(driver).receive({ waitSeconds: wait })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(driver.receiveCalls).toEqual([]);
  });

  it('passes a wait at the bound through', async () => {
    const driver = new RecordingDriver({ capabilities: { longPollMaxSeconds: 5 } });
    await new Queue(driver).receive({ waitSeconds: 5 });
    expect(driver.receiveCalls.map((r) => r.waitSeconds)).toEqual([5]);
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
