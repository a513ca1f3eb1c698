import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

/** Polls a condition on real time; a wait, never an assertion about how long something took. */
async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function redriving(maxReceives: number) {
  const clock = new VirtualClock();
  const driver = new FakeDriver({ clock, maxReceives });
  return { clock, driver, queue: new Queue(driver, { clock, retry: { maxAttempts: 1 } }) };
}

describe("consume over a provider that redrives on its own (the fake's maxReceives)", () => {
  it('refuses a retry.maxAttempts the provider would pre-empt', () => {
    const { queue } = redriving(3);
    let error: unknown;
    try {
      queue.consume(async () => {}, { retry: { maxAttempts: 5 } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { maxAttempts: 5, redriveAfterReceives: 3 },
    });
  });

  it('accepts a retry.maxAttempts at or below the redrive', async () => {
    const { queue } = redriving(3);
    await queue.consume(async () => {}, { retry: { maxAttempts: 3 }, signal: AbortSignal.abort() }).done;
    await queue.consume(async () => {}, { retry: { maxAttempts: 2 }, signal: AbortSignal.abort() }).done;
  });

  it('gives up after 3 deliveries by default, before the provider would have', async () => {
    const { clock, driver, queue } = redriving(3);
    await queue.publish(event('always-fails'));
    const counts: number[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        counts.push(delivery.receiveCount);
        throw new Error('still down');
      },
      { retry: { baseMs: 0, maxMs: 0 }, waitSeconds: 0 },
    );
    await waitFor(() => driver.deadLetters().length === 1, 'the dead letter');
    const closing = consumer.close();
    await clock.advance(1_000);
    await closing;
    expect(counts).toEqual([1, 2, 3]);
    // The consumer's own give-up, not the provider's "received 3 times".
    expect(driver.deadLetters()[0]).toMatchObject({ eventId: 'always-fails', receiveCount: 3 });
    expect(driver.deadLetters()[0]!.reason).toContain('gave up after 3 deliveries');
    expect(consumer.stats).toMatchObject({ released: 2, deadLettered: 1 });
  });
});
