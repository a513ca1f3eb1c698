import { CONSUMER_EVENT_NAMES, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { namesOf, never, payloadOf, record, settleOn, tracked, until } from './helpers/events';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

const opened: Array<{ queue: Queue; clock: VirtualClock }> = [];

function setup() {
  const clock = new VirtualClock();
  const driver = new FakeDriver({ clock });
  const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 }, logger: { warn: vi.fn() } });
  opened.push({ queue, clock });
  return { clock, driver, queue };
}

afterEach(async () => {
  for (const { queue, clock } of opened.splice(0)) await settleOn(clock, queue.close({ timeoutMs: 0 }));
});

describe('close({ timeoutMs })', () => {
  it('does not wait past its bound for a handler that never settles and ignores its signal; the message comes back at once', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('stuck'));
    const signals: AbortSignal[] = [];
    const consumer = queue.consume(
      async (_delivery, { signal }) => {
        signals.push(signal);
        await never();
      },
      { leaseSeconds: 60 },
    );
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => signals.length === 1, 'the handler to start');

    const closing = consumer.close({ timeoutMs: 5_000 });
    const state = tracked(closing);
    await clock.advance(4_999);
    expect(state.settled).toBe(false);
    expect(signals[0]!.aborted).toBe(false);
    await clock.advance(1);
    expect(state.settled).toBe(true);
    await closing;

    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toMatchObject({ code: 'CLOSED' });
    expect(namesOf(log)).toEqual(['received', 'closing', 'released', 'closed']);
    expect(payloadOf(log, 'closing')).toEqual({ timeoutMs: 5_000, inFlight: 1 });
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'closing', delaySeconds: 0 });
    expect(payloadOf(log, 'closed')).toMatchObject({ abandoned: 1, stats: { received: 1, released: 1 } });

    // Released with no delay: received again now, long before its 60 s lease would have ended.
    const [again] = await queue.receive();
    expect(again?.envelope.event_id).toBe('stuck');
    expect(again?.receiveCount).toBe(2);
  });

  it('lets handlers that finish within the bound settle as usual', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('quick'));
    let started = false;
    const consumer = queue.consume(async () => {
      started = true;
      await clock.sleep(1_000);
    });
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => started, 'the handler to start', 10);
    await settleOn(clock, consumer.close({ timeoutMs: 5_000 }));
    expect(namesOf(log)).toEqual(['received', 'closing', 'acked', 'closed']);
    expect(payloadOf(log, 'closed').abandoned).toBe(0);
  });

  it('without a bound, waits for the handler however long it takes (as before)', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('slow'));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let started = false;
    const consumer = queue.consume(async () => {
      started = true;
      await gate;
    });
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => started, 'the handler to start');
    const state = tracked(consumer.close());
    await clock.advance(3_600_000);
    expect(state.settled).toBe(false);
    open();
    await settleOn(clock, consumer.done);
    expect(namesOf(log)).toEqual(['received', 'closing', 'acked', 'closed']);
  });

  it('a bound given by a later close applies to a close already under way', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('stuck'));
    let started = false;
    const consumer = queue.consume(async () => {
      started = true;
      await never();
    });
    await until(clock, () => started, 'the handler to start');
    const first = tracked(consumer.close());
    await clock.advance(10_000);
    expect(first.settled).toBe(false);
    await settleOn(clock, consumer.close({ timeoutMs: 1_000 }));
    await settleOn(clock, consumer.done);
    expect(first.settled).toBe(true);
    expect(consumer.stats.released).toBe(1);
  });

  it('queue.close({ timeoutMs }) bounds its consumers the same way, then closes the driver', async () => {
    const { clock, driver, queue } = setup();
    await queue.publishBatch([event('a'), event('b')]);
    let started = 0;
    const consumer = queue.consume(
      async () => {
        started++;
        await never();
      },
      { concurrency: 2 },
    );
    const order: string[] = [];
    queue.on('closing', ({ timeoutMs }) => void order.push(`queue closing ${timeoutMs}`));
    queue.on('closed', () => void order.push('queue closed'));
    consumer.on('closing', () => void order.push('consumer closing'));
    consumer.on('released', ({ cause }) => void order.push(`consumer released (${cause})`));
    consumer.on('closed', ({ abandoned }) => void order.push(`consumer closed, ${abandoned} abandoned`));
    await until(clock, () => started === 2, 'both handlers to start');

    const state = tracked(queue.close({ timeoutMs: 2_000 }));
    await clock.advance(1_999);
    expect(state.settled).toBe(false);
    await clock.advance(1);
    expect(state.settled).toBe(true);
    expect(order).toEqual([
      'queue closing 2000',
      'consumer closing',
      'consumer released (closing)',
      'consumer released (closing)',
      'consumer closed, 2 abandoned',
      'queue closed',
    ]);
    // Both messages are ready again, not waiting out a lease.
    expect(driver.ready()).toBe(2);
  });

  it('refuses a bad bound', async () => {
    const { queue } = setup();
    const consumer = queue.consume(async () => {});
    await expect(consumer.close({ timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(consumer.close({ timeout: 5 } as never)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'timeout' },
    });
    await expect(queue.close({ timeoutMs: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('handlerTimeoutMs', () => {
  it('aborts a stuck handler, frees its slot, and fails the delivery by the policy: released, received again', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('sometimes-stuck'));
    const signals: AbortSignal[] = [];
    const consumer = queue.consume(
      async (delivery, { signal }) => {
        signals.push(signal);
        if (delivery.receiveCount === 1) await never();
      },
      { handlerTimeoutMs: 1_000, retry: { baseMs: 0, maxMs: 0 } },
    );
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => namesOf(log).includes('acked'), 'the second delivery to be acked');

    // Concurrency 1: the second delivery ran while the first handler still hangs.
    expect(namesOf(log).slice(0, 6)).toEqual([
      'received',
      'handler-timeout',
      'handler-failed',
      'released',
      'received',
      'acked',
    ]);
    expect(payloadOf(log, 'handler-timeout')).toMatchObject({ timeoutMs: 1_000 });
    const failed = payloadOf(log, 'handler-failed');
    expect(failed.error).toMatchObject({ code: 'UNAVAILABLE', details: { handlerTimeoutMs: 1_000 } });
    expect(failed.decision).toEqual({ action: 'release', delaySeconds: 0 });
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'handler-timeout', delaySeconds: 0 });
    expect(payloadOf(log, 'received', 1).delivery.receiveCount).toBe(2);
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toBe(failed.error);
    expect(signals[1]!.aborted).toBe(false);
    expect(consumer.stats).toMatchObject({ timedOut: 1, released: 1, acked: 1 });
  });

  it('a handler that always hangs ends in the dead letters once the attempts are spent', async () => {
    const { clock, driver, queue } = setup();
    await queue.publish(event('always-stuck'));
    const consumer = queue.consume(never, {
      handlerTimeoutMs: 500,
      retry: { baseMs: 0, maxMs: 0, maxAttempts: 2 },
    });
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => namesOf(log).includes('dead-lettered'), 'the dead letter');
    expect(namesOf(log).filter((name) => name === 'handler-timeout')).toHaveLength(2);
    expect(payloadOf(log, 'dead-lettered').reason).toContain('gave up after 2 deliveries');
    expect(driver.deadLetters().map((dead) => dead.eventId)).toEqual(['always-stuck']);
  });

  it('a handler that resolves after its timeout settles nothing more', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('late'));
    let finished = false;
    const consumer = queue.consume(
      async () => {
        await clock.sleep(2_000);
        finished = true;
      },
      { handlerTimeoutMs: 1_000, retry: { baseMs: 600_000, maxMs: 600_000, jitter: 0 } },
    );
    await until(clock, () => finished, 'the late handler to finish');
    await clock.advance(1_000);
    expect(consumer.stats).toMatchObject({ received: 1, timedOut: 1, released: 1, acked: 0, errors: 0 });
  });

  it('is refused unless a positive number of milliseconds a timer can hold', () => {
    const { queue } = setup();
    for (const handlerTimeoutMs of [0, -5, 2 ** 31, Number.POSITIVE_INFINITY, '100']) {
      expect(
        () => queue.consume(async () => {}, { handlerTimeoutMs } as never),
        String(handlerTimeoutMs),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          details: expect.objectContaining({ field: 'handlerTimeoutMs' }),
        }),
      );
    }
  });
});
