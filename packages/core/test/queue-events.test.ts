import { QUEUE_EVENT_NAMES, Queue, QueueError, type QueueEvents } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { namesOf, payloadOf, record, wrapDriver } from './helpers/events';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

const badBody = { eventId: 'bad', dedupeKey: 'bad', body: 'not json', attributes: {}, delaySeconds: 0 };

describe('queue events', () => {
  it('retry: a retryable driver failure about to be retried; the onRetry hook hears it too', async () => {
    const clock = new VirtualClock();
    const fake = new FakeDriver({ clock });
    let failures = 1;
    const driver = wrapDriver(fake, {
      publish: async (messages) => {
        if (failures-- > 0)
          return messages.map(() => ({ ok: false, error: new QueueError('UNAVAILABLE', 'blip') }));
        return fake.publish(messages);
      },
    });
    const onRetry = vi.fn();
    const queue = new Queue(driver, { clock, retry: { baseMs: 0, maxMs: 0 }, hooks: { onRetry } });
    const log = record(queue, QUEUE_EVENT_NAMES);
    await queue.publish(event('a'));
    expect(namesOf(log)).toEqual(['retry']);
    const retry = payloadOf(log, 'retry');
    expect(retry).toMatchObject({ operation: 'publish', attempt: 1, delayMs: 0 });
    expect(retry.error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(onRetry).toHaveBeenCalledWith(retry);
    await queue.close();
  });

  it('invalid-message: never handed out, dead-lettered; the hook keeps its fields; unheard, it is logged once', async () => {
    const clock = new VirtualClock();
    const fake = new FakeDriver({ clock });
    const warn = vi.fn();
    const hooked: unknown[] = [];
    const queue = new Queue(fake, {
      clock,
      logger: { warn },
      hooks: { onInvalidMessage: (info) => void hooked.push(info) },
    });
    await fake.publish([badBody, { ...badBody, eventId: 'bad2', dedupeKey: 'bad2' }]);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
    expect(hooked).toHaveLength(2);
    expect(Object.keys(hooked[0] as object).sort()).toEqual(['error', 'messageId', 'receiveCount']);
    // The hook is a listener of invalid-message: the queue's own default does not log what it heard.
    expect(warn).not.toHaveBeenCalled();

    const unheard = new Queue(new FakeDriver({ clock }), { clock, logger: { warn } });
    const log: Array<QueueEvents['invalid-message']> = [];
    await unheard.driver.publish([badBody]);
    await unheard.receive();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain(`queue over fake: nothing listens to 'invalid-message'`);
    unheard.on('invalid-message', (payload) => void log.push(payload));
    await unheard.driver.publish([{ ...badBody, eventId: 'x', dedupeKey: 'x' }]);
    await unheard.receive();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ receiveCount: 1, deadLetter: true, error: { code: 'INVALID_ENVELOPE' } });
    expect(warn).toHaveBeenCalledTimes(1);
    await queue.close();
    await unheard.close();
  });

  it('bridge-error: a hop that could not be re-sent; the onBridgeError hook hears it too', async () => {
    const clock = new VirtualClock();
    const fake = new FakeDriver({ clock, nativeMaxDelaySeconds: 900 });
    let refuse = false;
    const driver = wrapDriver(fake, {
      publish: async (messages) =>
        refuse
          ? messages.map(() => ({ ok: false, error: new QueueError('UNAUTHORIZED', 'refused') }))
          : fake.publish(messages),
    });
    const onBridgeError = vi.fn();
    const queue = new Queue(driver, { clock, hooks: { onBridgeError } });
    const log = record(queue, QUEUE_EVENT_NAMES);
    await queue.publish(event('later', { delaySeconds: 2_000 }));
    refuse = true;
    await clock.advance(900_000);
    expect(await queue.receive()).toEqual([]);
    expect(namesOf(log)).toEqual(['bridge-error']);
    expect(payloadOf(log, 'bridge-error')).toMatchObject({
      eventId: 'later',
      error: { code: 'UNAUTHORIZED' },
    });
    expect(onBridgeError).toHaveBeenCalledWith(payloadOf(log, 'bridge-error'));
    await queue.close();
  });

  it('a hook that throws no longer breaks the receive: it is reported as a listener error', async () => {
    const clock = new VirtualClock();
    const fake = new FakeDriver({ clock });
    const warn = vi.fn();
    const queue = new Queue(fake, {
      clock,
      logger: { warn },
      hooks: {
        onInvalidMessage: () => {
          throw new Error('hook bug');
        },
      },
    });
    await fake.publish([badBody]);
    await queue.publish(event('good'));
    const deliveries = await queue.receive({ maxMessages: 10 });
    expect(deliveries.map((d) => d.envelope.event_id)).toEqual(['good']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain(
      `'error' (listener) (a 'invalid-message' listener failed)`,
    );
    await queue.close();
  });

  it('closing, then closed once the driver is closed; a second close waits for the same one', async () => {
    const queue = new Queue(new FakeDriver());
    const log = record(queue, QUEUE_EVENT_NAMES);
    const first = queue.close();
    const second = queue.close();
    await Promise.all([first, second]);
    await queue.close();
    expect(namesOf(log)).toEqual(['closing', 'closed']);
    expect(payloadOf(log, 'closing')).toEqual({ timeoutMs: undefined });
  });
});
