import { QueueError } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { bridgedSetup, NATIVE, pollUntil, WEEK_SECONDS, weekLater } from './helpers/bridge';
import type { FakeDriverOptions } from './helpers/fake-driver';

const WEEK_MS = WEEK_SECONDS * 1000;

/**
 * A crash between the bridge's two steps: the next hop is published, then the ack of the hop it
 * replaces fails once, so that hop comes back when its lease ends and is re-sent.
 */
function crashOnFirstAck(driver: Driver): Driver {
  let crashed = false;
  return {
    ...driver,
    name: driver.name,
    capabilities: driver.capabilities,
    ack: async (receipts) => {
      if (!crashed) {
        crashed = true;
        throw new QueueError('INTERNAL', 'worker died before the ack');
      }
      return driver.ack(receipts);
    },
  };
}

async function weekWithCrash(options: Omit<FakeDriverOptions, 'clock'>) {
  const bridgeErrors: QueueError[] = [];
  const { clock, fake, queue, published, delays } = bridgedSetup(options, crashOnFirstAck, {
    onBridgeError: ({ error }) => bridgeErrors.push(error),
  });
  const due = clock.now() + WEEK_MS;
  await queue.publish(weekLater('evt_crash', { attributes: { tenant: 'acme' } }));
  // Polls every 2 minutes with the default 30 s lease: the crashed hop comes back within the
  // 300 s dedupe window of its re-send.
  const early = await pollUntil(queue, clock, due - 1, 120_000);
  const arrivals = await pollUntil(queue, clock, due + 2_000, 100);
  await pollUntil(queue, clock, due + 86_400_000, 300_000, arrivals);
  return { early, arrivals, due, bridgeErrors, fake, published, delays };
}

describe('the delay bridge across a crash between hops', () => {
  it('still delivers exactly once where the driver dedupes (300 s window)', async () => {
    const run = await weekWithCrash({ dedupe: { kind: 'window', windowSeconds: 300 } });
    expect(run.bridgeErrors.map((e) => e.message)).toEqual(['worker died before the ack']);
    // The crashed hop was re-sent under the same key as before.
    const keys = run.published.map((m) => m.dedupeKey);
    expect(new Set(keys).size).toBe(keys.length - 1);
    expect(run.early).toEqual([]);
    expect(run.arrivals).toHaveLength(1);
    expect(run.arrivals[0]!.at).toBeGreaterThanOrEqual(run.due);
    expect(run.arrivals[0]!.at - run.due).toBeLessThanOrEqual(1_000);
    expect(run.arrivals[0]!.delivery).toMatchObject({ attributes: { tenant: 'acme' }, receiveCount: 1 });
    expect(run.fake.depth()).toBe(0);
    expect(Math.max(...run.delays)).toBeLessThanOrEqual(NATIVE);
  }, 60_000);

  it('delivers at most twice, and never early, where the driver does not dedupe', async () => {
    const run = await weekWithCrash({ dedupe: { kind: 'none' } });
    expect(run.bridgeErrors).toHaveLength(1);
    expect(run.early).toEqual([]);
    expect(run.arrivals.length).toBeGreaterThanOrEqual(1);
    expect(run.arrivals.length).toBeLessThanOrEqual(2);
    for (const { at, delivery } of run.arrivals) {
      expect(at).toBeGreaterThanOrEqual(run.due);
      expect(delivery.envelope.event_id).toBe('evt_crash');
      expect(delivery.attributes).toEqual({ tenant: 'acme' });
    }
    expect(run.fake.depth()).toBe(0);
    expect(Math.max(...run.delays)).toBeLessThanOrEqual(NATIVE);
  }, 60_000);
});
