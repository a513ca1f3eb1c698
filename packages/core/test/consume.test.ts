import { type Delivery, Queue, QueueError } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

/** Lets the event loop run for a while so a misbehaving consumer has the chance to misbehave. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 50));

const gates: Array<() => void> = [];
/** A promise the test opens; afterEach opens any left shut so a failed test cannot hang clean-up. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  gates.push(open);
  return { opened, open };
}

function tracked(promise: Promise<unknown>) {
  const state = { settled: false };
  const settle = () => {
    state.settled = true;
  };
  promise.then(settle, settle);
  return state;
}

const queues: Array<{ queue: Queue; clock?: VirtualClock }> = [];
function systemQueue(driver = new FakeDriver()) {
  const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
  queues.push({ queue });
  return { queue, driver };
}

afterEach(async () => {
  for (const open of gates.splice(0)) open();
  for (const { queue, clock } of queues.splice(0)) {
    const closing = queue.close();
    const state = tracked(closing);
    // A handler left asleep on virtual time by a failed test must not hang the clean-up.
    for (let i = 0; clock && !state.settled && i < 100; i++) await clock.advance(1_000);
    await closing;
  }
});

const noBackoff = { baseMs: 0, maxMs: 0 };

describe('consume: outcomes', () => {
  it('acks every delivery whose handler succeeds, in order with concurrency 1', async () => {
    const { queue, driver } = systemQueue();
    await queue.publishBatch(['a', 'b', 'c'].map((id) => event(id)));
    const seen: string[] = [];
    const consumer = queue.consume(async (delivery) => {
      seen.push(delivery.envelope.event_id);
    });
    await waitFor(() => consumer.stats.acked === 3, 'three acks');
    await consumer.close();
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(driver.depth()).toBe(0);
    expect(consumer.stats).toMatchObject({ received: 3, acked: 3, released: 0, deadLettered: 0, errors: 0 });
  });

  it('releases a retryable failure and succeeds on redelivery', async () => {
    const { queue, driver } = systemQueue();
    await queue.publish(event('flaky'));
    const counts: number[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        counts.push(delivery.receiveCount);
        if (delivery.receiveCount === 1) throw new Error('downstream timed out');
      },
      { retry: noBackoff },
    );
    await waitFor(() => consumer.stats.acked === 1, 'the retry to succeed');
    await consumer.close();
    expect(counts).toEqual([1, 2]);
    expect(consumer.stats).toMatchObject({ released: 1, acked: 1, deadLettered: 0 });
    expect(driver.depth()).toBe(0);
    expect(driver.deadLetters()).toEqual([]);
  });

  it('releases with the backoff delay: fractional delays on a fractional driver', async () => {
    const { queue } = systemQueue(new FakeDriver({ fractionalDelay: true }));
    await queue.publish(event('flaky'));
    const counts: number[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        counts.push(delivery.receiveCount);
        if (delivery.receiveCount < 3) throw new Error('not yet');
      },
      { retry: { baseMs: 10, maxMs: 20, jitter: 0 } },
    );
    await waitFor(() => consumer.stats.acked === 1, 'the third delivery to succeed');
    await consumer.close();
    expect(counts).toEqual([1, 2, 3]);
  });

  it.each([
    ['a non-retryable QueueError', () => new QueueError('INVALID_ARGUMENT', 'unknown customer')],
    [
      'an error with retryable: false',
      () => Object.assign(new Error('unknown customer'), { retryable: false }),
    ],
  ])('dead-letters %s at once', async (_name, makeError) => {
    const { queue, driver } = systemQueue();
    await queue.publish(event('poison'));
    let calls = 0;
    const consumer = queue.consume(
      async () => {
        calls++;
        throw makeError();
      },
      { retry: noBackoff },
    );
    await waitFor(() => consumer.stats.deadLettered === 1, 'the dead letter');
    await consumer.close();
    expect(calls).toBe(1);
    expect(driver.deadLetters()).toHaveLength(1);
    expect(driver.deadLetters()[0]).toMatchObject({ eventId: 'poison', receiveCount: 1 });
    expect(driver.deadLetters()[0]!.reason).toContain('permanent failure: unknown customer');
    expect(driver.depth()).toBe(0);
  });

  it('dead-letters a retryable failure after retry.maxAttempts deliveries', async () => {
    const { queue, driver } = systemQueue();
    await queue.publish(event('always-fails'));
    const counts: number[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        counts.push(delivery.receiveCount);
        throw new Error('still down');
      },
      { retry: { ...noBackoff, maxAttempts: 3 } },
    );
    await waitFor(() => driver.deadLetters().length === 1, 'the dead letter');
    await consumer.close();
    expect(counts).toEqual([1, 2, 3]);
    expect(driver.deadLetters()[0]).toMatchObject({ eventId: 'always-fails', receiveCount: 3 });
    expect(driver.deadLetters()[0]!.reason).toContain('gave up after 3 deliveries');
    expect(consumer.stats).toMatchObject({ released: 2, deadLettered: 1, acked: 0 });
  });

  it('without a driver dead-letter destination, hands the delivery to onDeadLetter and acks it', async () => {
    const fake = new FakeDriver();
    // The same driver, declaring no DLQ.
    const driver: Driver = {
      name: 'fake-without-dlq',
      capabilities: { ...fake.capabilities, deadLetter: { move: false, redriveAfterReceives: null } },
      publish: (messages) => fake.publish(messages),
      receive: (request) => fake.receive(request),
      ack: (receipts) => fake.ack(receipts),
      release: (entries) => fake.release(entries),
      extendLease: (entries) => fake.extendLease(entries),
      close: () => fake.close(),
    };
    const { queue } = systemQueue(driver as FakeDriver);
    await queue.publish(event('poison'));
    const dead: Array<{ id: string; reason: string }> = [];
    const consumer = queue.consume(
      async () => {
        throw new QueueError('INVALID_ENVELOPE', 'nope');
      },
      {
        onDeadLetter: async (delivery, reason) => void dead.push({ id: delivery.envelope.event_id, reason }),
      },
    );
    await waitFor(() => consumer.stats.deadLettered === 1, 'onDeadLetter');
    await consumer.close();
    expect(dead).toEqual([{ id: 'poison', reason: 'permanent failure: nope' }]);
    expect(fake.depth()).toBe(0);
    expect(fake.deadLetters()).toEqual([]);
  });
});

describe('consume: concurrency and shutdown', () => {
  it('runs at most `concurrency` handlers at once', async () => {
    const { queue } = systemQueue();
    await queue.publishBatch(Array.from({ length: 10 }, (_, i) => event(`e${i}`)));
    const release = gate();
    let inFlight = 0;
    let maxInFlight = 0;
    const consumer = queue.consume(
      async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await release.opened;
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
      },
      { concurrency: 3 },
    );
    await waitFor(() => inFlight === 3, 'three handlers to start');
    await idle();
    expect(inFlight).toBe(3);
    expect(consumer.stats.received).toBe(3);
    release.open();
    await waitFor(() => consumer.stats.acked === 10, 'all ten acks');
    await consumer.close();
    expect(maxInFlight).toBe(3);
  });

  it('close() drains: the handler in progress completes and is acked, and nothing more is received', async () => {
    const { queue, driver } = systemQueue();
    const receive = vi.spyOn(driver, 'receive');
    await queue.publish(event('first'));
    const release = gate();
    const started: string[] = [];
    // Concurrency 2 with one delivery in hand: the loop is in its next long poll when close() comes.
    const consumer = queue.consume(
      async (delivery) => {
        started.push(delivery.envelope.event_id);
        await release.opened;
      },
      { concurrency: 2, waitSeconds: 20 },
    );
    await waitFor(
      () => started.length === 1 && receive.mock.calls.length === 2,
      'the handler and the next poll',
    );

    const closing = consumer.close();
    const state = tracked(closing);
    expect(consumer.stopping).toBe(true);
    await queue.publish(event('second'));
    await idle();
    expect(state.settled).toBe(false);

    release.open();
    await closing;
    expect(started).toEqual(['first']);
    expect(consumer.stats).toMatchObject({ received: 1, acked: 1, errors: 0 });
    expect(receive).toHaveBeenCalledTimes(2);
    // The second message was never taken: it is still there for the next consumer, first delivery.
    expect(driver.depth()).toBe(1);
    const [left] = await queue.receive();
    expect(left).toMatchObject({ receiveCount: 1, envelope: { event_id: 'second' } });
  });

  // Known bug (reported): Queue.close() marks the queue closed before draining, and ackBatch /
  // releaseBatch / extendOne / deadLetterOne now assert it open, so the in-flight ack fails with
  // CLOSED and the message stays leased. Flip to `it` once fixed.
  it('queue.close() drains its consumers before closing the driver', async () => {
    const { queue, driver } = systemQueue();
    await queue.publish(event('e1'));
    const release = gate();
    let started = false;
    const errors: unknown[] = [];
    const consumer = queue.consume(
      async () => {
        started = true;
        await release.opened;
      },
      { onError: (error) => errors.push(error) },
    );
    await waitFor(() => started, 'the handler');
    const closing = queue.close();
    await idle();
    release.open();
    await closing;
    expect(errors).toEqual([]);
    expect(consumer.stats.acked).toBe(1);
    expect(driver.depth()).toBe(0);
  });

  it('an AbortSignal stops it the same way', async () => {
    const { queue, driver } = systemQueue();
    const receive = vi.spyOn(driver, 'receive');
    await queue.publish(event('first'));
    const controller = new AbortController();
    const release = gate();
    let calls = 0;
    const consumer = queue.consume(
      async () => {
        calls++;
        await release.opened;
      },
      { concurrency: 2, waitSeconds: 20, signal: controller.signal },
    );
    await waitFor(() => calls === 1 && receive.mock.calls.length === 2, 'the handler and the next poll');
    controller.abort();
    expect(consumer.stopping).toBe(true);
    const state = tracked(consumer.done);
    await queue.publish(event('second'));
    await idle();
    expect(state.settled).toBe(false);
    release.open();
    await consumer.done;
    expect(calls).toBe(1);
    expect(consumer.stats).toMatchObject({ received: 1, acked: 1, errors: 0 });
    expect(receive).toHaveBeenCalledTimes(2);
    expect(driver.depth()).toBe(1);
  });

  it('a signal aborted before start means no receive at all', async () => {
    const { queue, driver } = systemQueue();
    await queue.publish(event('e1'));
    const receive = vi.spyOn(driver, 'receive');
    const consumer = queue.consume(async () => {}, { signal: AbortSignal.abort() });
    await consumer.done;
    expect(receive).not.toHaveBeenCalled();
    expect(consumer.stats.received).toBe(0);
  });
});

describe('consume: leases (VirtualClock)', () => {
  function virtualQueue() {
    const clock = new VirtualClock();
    const driver = new FakeDriver({ clock });
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    queues.push({ queue, clock });
    return { clock, driver, queue };
  }

  it('extends the lease while a slow handler runs, so a second consumer never gets the message', async () => {
    const { clock, driver, queue } = virtualQueue();
    await queue.publish(event('slow'));
    const extend = vi.spyOn(driver, 'extendLease');
    const invocations: Array<{ consumer: string; receiveCount: number }> = [];
    let finished = false;
    const handler = (name: string) => async (delivery: Delivery) => {
      invocations.push({ consumer: name, receiveCount: delivery.receiveCount });
      await clock.sleep(2_500);
      finished = true;
    };
    const one = queue.consume(handler('one'), { leaseSeconds: 1 });
    await waitFor(() => invocations.length === 1, 'the first handler');
    const two = queue.consume(handler('two'), { leaseSeconds: 1 });
    for (let t = 0; t < 2_500; t += 100) await clock.advance(100);
    await waitFor(() => finished && one.stats.acked + one.stats.errors > 0, 'the first handler to settle');
    expect(one.stats).toMatchObject({ acked: 1, errors: 0 });
    // Well past the original 1 s lease, the message was never visible to consumer two.
    await clock.advance(5_000);
    await Promise.all([one.close(), two.close()]);
    expect(invocations).toEqual([{ consumer: 'one', receiveCount: 1 }]);
    expect(extend.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(extend.mock.calls.every(([entries]) => entries.every((e) => e.leaseSeconds === 1))).toBe(true);
    expect(driver.depth()).toBe(0);
  });

  it('an idle consumer stops on close without waiting out its long poll', async () => {
    const { clock, driver, queue } = virtualQueue();
    const receive = vi.spyOn(driver, 'receive');
    const consumer = queue.consume(async () => {}, { waitSeconds: 20 });
    await waitFor(() => receive.mock.calls.length === 1, 'the long poll');
    const start = clock.now();
    await consumer.close();
    expect(clock.now()).toBe(start);
    await queue.publish(event('after'));
    await clock.advance(30_000);
    expect(receive).toHaveBeenCalledTimes(1);
    expect(consumer.stats.received).toBe(0);
    expect(driver.depth()).toBe(1);
  });

  it('tells the handler through its signal when the lease is lost', async () => {
    const { clock, driver, queue } = virtualQueue();
    await queue.publish(event('e1'));
    vi.spyOn(driver, 'extendLease').mockRejectedValue(new QueueError('LEASE_LOST', 'gone'));
    const errors: unknown[] = [];
    let aborted: unknown;
    const consumer = queue.consume(
      async (_delivery, { signal }) => {
        const lost = new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        await Promise.race([lost, clock.sleep(60_000)]);
        aborted = signal.reason;
      },
      { leaseSeconds: 10, onError: (error) => errors.push(error) },
    );
    await waitFor(() => consumer.stats.received === 1, 'the delivery');
    await clock.advance(5_000);
    await waitFor(() => aborted !== undefined, 'the abort');
    await consumer.close();
    expect(aborted).toMatchObject({ code: 'LEASE_LOST' });
    expect(errors[0]).toMatchObject({ code: 'LEASE_LOST' });
  });

  it('reports a failing receive and tries again after a pause', async () => {
    const { clock, driver, queue } = virtualQueue();
    await queue.publish(event('e1'));
    vi.spyOn(driver, 'receive').mockRejectedValueOnce(new QueueError('UNAUTHORIZED', 'key rotated'));
    const errors: unknown[] = [];
    let handled = 0;
    const consumer = queue.consume(
      async () => {
        handled++;
      },
      { onError: (error) => errors.push(error) },
    );
    await waitFor(() => errors.length === 1, 'the receive error');
    expect(handled).toBe(0);
    await clock.advance(200); // the first pause is at most 200 ms
    await waitFor(() => consumer.stats.acked === 1, 'the retry');
    await consumer.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(consumer.stats.errors).toBe(1);
  });
});
