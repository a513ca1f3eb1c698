import {
  CONSUMER_EVENT_NAMES,
  type Consumer,
  type ConsumerEvents,
  type EventLogger,
  Queue,
  QueueError,
} from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { namesOf, payloadOf, record, settleOn, until, wrapDriver } from './helpers/events';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

/** Every event but the problem ones: listening to those would turn their logging off. */
const QUIET_NAMES = CONSUMER_EVENT_NAMES.filter((name) => name !== 'error' && name !== 'lease-lost');

const opened: Array<{ queue: Queue; clock: VirtualClock }> = [];

function setup(driverFor: (fake: FakeDriver) => FakeDriver | ReturnType<typeof wrapDriver> = (m) => m) {
  const clock = new VirtualClock();
  const fake = new FakeDriver({ clock });
  const logger = { warn: vi.fn<EventLogger['warn']>() };
  const queue = new Queue(driverFor(fake), { clock, retry: { maxAttempts: 1 }, logger });
  opened.push({ queue, clock });
  return { clock, fake, queue, logger };
}

afterEach(async () => {
  for (const { queue, clock } of opened.splice(0)) await settleOn(clock, queue.close({ timeoutMs: 0 }));
});

describe('consumer events', () => {
  it('received, acked, drained, then closing and closed, with their payloads', async () => {
    const { clock, queue, logger } = setup();
    await queue.publish(event('a'));
    const consumer = queue.consume(async () => {});
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => namesOf(log).includes('drained'), 'drained');
    await settleOn(clock, consumer.close());

    expect(namesOf(log)).toEqual(['received', 'acked', 'drained', 'closing', 'closed']);
    expect(payloadOf(log, 'received').delivery.envelope.event_id).toBe('a');
    expect(payloadOf(log, 'acked').delivery.envelope.event_id).toBe('a');
    expect(payloadOf(log, 'drained').stats).toMatchObject({ received: 1, acked: 1 });
    expect(payloadOf(log, 'closing')).toEqual({ timeoutMs: undefined, inFlight: 0 });
    expect(payloadOf(log, 'closed')).toEqual({
      stats: { received: 1, acked: 1, released: 0, deadLettered: 0, errors: 0, timedOut: 0 },
      abandoned: 0,
    });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('drained fires once per idle spell, and again after new work', async () => {
    const { clock, queue } = setup();
    const consumer = queue.consume(async () => {});
    const log = record(consumer, ['received', 'drained']);
    // Several empty receives: one drained.
    await clock.advance(5_000);
    expect(namesOf(log)).toEqual(['drained']);
    await queue.publish(event('b'));
    await until(clock, () => namesOf(log).length === 3, 'the second drained');
    expect(namesOf(log)).toEqual(['drained', 'received', 'drained']);
  });

  it('a retryable failure: handler-failed with the decision, released with its backoff, received again, acked', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('flaky'));
    const consumer = queue.consume(
      async (delivery) => {
        if (delivery.receiveCount === 1) throw new Error('downstream down');
      },
      { retry: { baseMs: 1_000, maxMs: 1_000, jitter: 0 } },
    );
    const log = record(consumer, QUIET_NAMES);
    await until(clock, () => namesOf(log).includes('acked'), 'the ack');

    expect(namesOf(log).slice(0, 5)).toEqual(['received', 'handler-failed', 'released', 'received', 'acked']);
    const failed = payloadOf(log, 'handler-failed');
    expect(failed.error).toBeInstanceOf(Error);
    expect((failed.error as Error).message).toBe('downstream down');
    expect(failed.decision).toEqual({ action: 'release', delaySeconds: 1 });
    expect(payloadOf(log, 'released')).toMatchObject({ delaySeconds: 1, cause: 'handler-failed' });
    expect(payloadOf(log, 'released').error).toBe(failed.error);
    expect(payloadOf(log, 'received', 1).delivery.receiveCount).toBe(2);
  });

  it('a permanent failure: handler-failed (give up), then dead-lettered to the dead letters', async () => {
    const { clock, fake, queue } = setup();
    await queue.publish(event('poison'));
    const consumer = queue.consume(async () => {
      throw new QueueError('INVALID_ARGUMENT', 'unknown customer');
    });
    const log = record(consumer, QUIET_NAMES);
    await until(clock, () => namesOf(log).includes('dead-lettered'), 'the dead letter');

    expect(namesOf(log).slice(0, 3)).toEqual(['received', 'handler-failed', 'dead-lettered']);
    expect(payloadOf(log, 'handler-failed').decision).toMatchObject({ action: 'give-up' });
    const dead = payloadOf(log, 'dead-lettered');
    expect(dead.to).toBe('dead-letters');
    expect(dead.reason).toContain('permanent failure: unknown customer');
    expect(dead.delivery.envelope.event_id).toBe('poison');
    expect(fake.deadLetters()).toHaveLength(1);
  });

  it('dead-lettered to the sink, where the driver has no dead letters', async () => {
    const { clock, queue } = setup((fake) =>
      wrapDriver(fake, {
        capabilities: { ...fake.capabilities, deadLetter: { move: false, redriveAfterReceives: null } },
      }),
    );
    await queue.publish(event('poison'));
    const sunk: string[] = [];
    const consumer = queue.consume(
      async () => {
        throw new QueueError('INVALID_ARGUMENT', 'nope');
      },
      { onDeadLetter: async (delivery) => void sunk.push(delivery.envelope.event_id) },
    );
    const log = record(consumer, QUIET_NAMES);
    await until(clock, () => namesOf(log).includes('dead-lettered'), 'the dead letter');
    expect(payloadOf(log, 'dead-lettered').to).toBe('sink');
    expect(sunk).toEqual(['poison']);
  });

  it('given up with nowhere to put it: released (kept) with the longest backoff, and an error', async () => {
    const { clock, queue } = setup((fake) =>
      wrapDriver(fake, {
        capabilities: { ...fake.capabilities, deadLetter: { move: false, redriveAfterReceives: null } },
      }),
    );
    await queue.publish(event('poison'));
    const consumer = queue.consume(
      async () => {
        throw new QueueError('INVALID_ARGUMENT', 'nope');
      },
      { retry: { maxMs: 600_000 } },
    );
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => namesOf(log).includes('error'), 'the error');
    expect(namesOf(log).slice(0, 4)).toEqual(['received', 'handler-failed', 'released', 'error']);
    expect(payloadOf(log, 'released')).toMatchObject({ cause: 'kept', delaySeconds: 600 });
    const error = payloadOf(log, 'error');
    expect(error.kind).toBe('no-dead-letter');
    expect(String((error as { error: Error }).error.message)).toContain('no dead-letter destination');
  });

  it('lease-lost when an extension fails: the handler signal aborts with that error', async () => {
    const { clock, queue } = setup((fake) =>
      wrapDriver(fake, {
        extendLease: async (entries) =>
          entries.map(() => ({ ok: false, error: new QueueError('LEASE_LOST', 'the lease is gone') })),
      }),
    );
    await queue.publish(event('slow'));
    let reason: unknown;
    const consumer = queue.consume(
      async (_delivery, { signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        reason = signal.reason;
      },
      { leaseSeconds: 10 },
    );
    const log = record(consumer, CONSUMER_EVENT_NAMES);
    await until(clock, () => namesOf(log).includes('acked'), 'the handler to give up and resolve');

    expect(namesOf(log).slice(0, 3)).toEqual(['received', 'lease-lost', 'acked']);
    const lost = payloadOf(log, 'lease-lost');
    expect(lost.during).toBe('extension');
    expect(lost.error).toMatchObject({ code: 'LEASE_LOST' });
    expect(reason).toBe(lost.error);
    expect(consumer.stats.errors).toBe(1);
  });

  it('lease-lost when the provider refuses the settle with LEASE_LOST; onError hears it too', async () => {
    const { clock, queue, logger } = setup((fake) =>
      wrapDriver(fake, {
        ack: async (receipts) =>
          receipts.map(() => ({ ok: false, error: new QueueError('LEASE_LOST', 'someone else has it') })),
      }),
    );
    await queue.publish(event('late'));
    const onError = vi.fn();
    const consumer = queue.consume(async () => {}, { onError });
    const log = record(consumer, QUIET_NAMES);
    const lost: Array<ConsumerEvents['lease-lost']> = [];
    consumer.on('lease-lost', (payload) => void lost.push(payload));
    await until(clock, () => lost.length === 1, 'the lease-lost');

    expect(lost[0]!.during).toBe('settle');
    expect(lost[0]!.delivery.envelope.event_id).toBe('late');
    expect(namesOf(log)).not.toContain('acked');
    expect(onError).toHaveBeenCalledWith(lost[0]!.error, lost[0]!.delivery);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('a listener that throws or rejects breaks nothing: the delivery is acked and the error reported', async () => {
    const { clock, queue } = setup();
    await queue.publish(event('a'));
    const consumer = queue.consume(async () => {});
    consumer.on('received', () => {
      throw new Error('listener bug');
    });
    consumer.on('received', async () => {
      throw new Error('async listener bug');
    });
    const later = vi.fn();
    consumer.on('received', later);
    const errors: Array<ConsumerEvents['error']> = [];
    consumer.on('error', (payload) => void errors.push(payload));
    await until(clock, () => consumer.stats.acked === 1 && errors.length === 2, 'the ack');

    expect(later).toHaveBeenCalledTimes(1);
    expect(errors.map((e) => [e.kind, (e as { event?: string }).event, (e.error as Error).message])).toEqual([
      ['listener', 'received', 'listener bug'],
      ['listener', 'received', 'async listener bug'],
    ]);
  });
});

describe('an error nothing listens to', () => {
  /** A driver whose first `failures` receives fail with a non-retryable error. */
  function failingReceives(failures: number) {
    const calls = { receive: 0 };
    const made = setup((fake) =>
      wrapDriver(fake, {
        receive: async (request) => {
          calls.receive++;
          if (calls.receive <= failures) {
            throw new QueueError('UNAUTHORIZED', 'the provider refused the credentials');
          }
          return fake.receive(request);
        },
      }),
    );
    return { ...made, calls };
  }

  it('is logged once per kind, never once per failure, and without secrets', async () => {
    const { clock, queue, logger, calls } = failingReceives(4);
    await queue.publishBatch([event('one'), event('two')]);
    const consumer: Consumer = queue.consume(async (delivery) => {
      await delivery.ack();
      throw new Error(`password=hunter2 rejected for ${delivery.envelope.event_id}`);
    });
    await until(clock, () => consumer.stats.acked + consumer.stats.errors >= 6, 'every failure', 1_000);

    expect(calls.receive).toBeGreaterThanOrEqual(5);
    expect(consumer.stats.errors).toBe(6);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    const [receiveLine, handlerLine] = logger.warn.mock.calls.map(([line]) => String(line));
    expect(receiveLine).toContain(`consumer over fake: nothing listens to 'error' (receive)`);
    expect(receiveLine).toContain('QueueError UNAUTHORIZED: the provider refused the credentials');
    expect(handlerLine).toContain(`'error' (handler-after-settle)`);
    expect(handlerLine).toContain('password=[REDACTED]');
    expect(handlerLine).not.toContain('hunter2');
  });

  it('is not logged when onError (or any error listener) hears it', async () => {
    const { clock, queue, logger, calls } = failingReceives(3);
    const onError = vi.fn();
    queue.consume(async () => {}, { onError });
    await until(clock, () => calls.receive > 3, 'the failing receives', 1_000);
    expect(onError).toHaveBeenCalledTimes(3);
    expect(onError.mock.calls[0]![0]).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('a lease-lost nothing listens to is logged too', async () => {
    const { clock, queue, logger } = setup((fake) =>
      wrapDriver(fake, {
        ack: async (receipts) =>
          receipts.map(() => ({ ok: false, error: new QueueError('LEASE_LOST', 'someone else has it') })),
      }),
    );
    await queue.publishBatch([event('a'), event('b')]);
    const consumer = queue.consume(async () => {});
    await until(clock, () => consumer.stats.errors === 2, 'both lease losses');
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0]![0])).toContain(`nothing listens to 'lease-lost'`);
  });
});

describe('subscribing', () => {
  it('on returns an unsubscribe, once fires once, off removes; an unknown name or a non-function is refused', async () => {
    const { clock, queue } = setup();
    const consumer = queue.consume(async () => {});
    const seen: string[] = [];
    const stop = consumer.on(
      'received',
      ({ delivery }) => void seen.push(`on:${delivery.envelope.event_id}`),
    );
    consumer.once('received', ({ delivery }) => void seen.push(`once:${delivery.envelope.event_id}`));
    const removed = () => void seen.push('removed');
    consumer.on('received', removed);
    consumer.off('received', removed);
    expect(consumer.listenerCount('received')).toBe(2);

    await queue.publish(event('a'));
    await until(clock, () => consumer.stats.acked === 1, 'the first ack');
    stop();
    stop();
    await queue.publish(event('b'));
    await until(clock, () => consumer.stats.acked === 2, 'the second ack');
    expect(seen).toEqual(['on:a', 'once:a']);
    expect(consumer.listenerCount('received')).toBe(0);

    expect(() => consumer.on('recieved' as 'received', () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => consumer.on('received', 'log' as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
