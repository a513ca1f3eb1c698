import { Queue, QueueError } from '@queueport/core';
import type { OutgoingMessage, PublishOutcome } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver, memoryAdapter } from '@queueport/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observeQueueStats, otelTelemetry } from '../src';
import { type OtelHarness, otelHarness } from './otel-harness';

const envelope = (id: string) => ({ event_id: id, type: 'order.paid', payload: { order: id } });
const quietLogger = { warn: () => {} };

/** A memory driver whose first `failures` publish calls fail as an unreachable provider would. */
class FlakyPublishDriver extends MemoryDriver {
  failures: number;
  constructor(options: ConstructorParameters<typeof MemoryDriver>[0], failures: number) {
    super(options);
    this.failures = failures;
  }
  override async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    if (this.failures > 0) {
      this.failures--;
      throw new QueueError('UNAVAILABLE', 'provider unreachable');
    }
    return super.publish(messages);
  }
}

describe('queue metrics through OpenTelemetry, on the memory driver', () => {
  let otel: OtelHarness;
  let clock: VirtualClock;

  beforeEach(() => {
    otel = otelHarness();
    clock = new VirtualClock();
  });
  afterEach(() => otel.close());

  const telemetry = () =>
    otelTelemetry({
      meterProvider: otel.meterProvider,
      tracerProvider: otel.tracerProvider,
      destinationName: 'orders',
    });

  it('counts publishes, dedupe hits, receives, acks, releases, dead letters and provider retries', async () => {
    const driver = new FlakyPublishDriver({ clock }, 1);
    const queue = new Queue(driver, {
      clock,
      telemetry: telemetry(),
      logger: quietLogger,
      retry: { baseMs: 1, maxMs: 1 },
    });
    const base = { 'messaging.system': 'memory', 'messaging.destination.name': 'orders' };

    await queue.publishBatch([{ envelope: envelope('e1') }, { envelope: envelope('e2') }]);
    await queue.publish({ envelope: envelope('e1') }); // absorbed by the driver's dedupe
    expect(
      await otel.total('messaging.client.sent.messages', { ...base, 'messaging.operation.name': 'publish' }),
    ).toBe(3);
    expect(await otel.total('queueport.publish.duplicates', base)).toBe(1);
    expect(
      await otel.total('queueport.retries', {
        'queueport.retry.kind': 'provider-call',
        'messaging.operation.name': 'publish',
      }),
    ).toBe(1);

    const first = await queue.receive({ maxMessages: 2 });
    expect(first).toHaveLength(2);
    await first[0]!.ack();
    await first[1]!.release();
    const [again] = await queue.receive();
    await again!.deadLetter('no longer wanted');

    expect(await otel.total('messaging.client.consumed.messages', base)).toBe(3);
    expect(await otel.total('queueport.messages.acked', base)).toBe(1);
    expect(await otel.total('queueport.messages.released', base)).toBe(1);
    expect(
      await otel.total('queueport.messages.dead_lettered', {
        ...base,
        'queueport.dead_letter.to': 'dead-letters',
      }),
    ).toBe(1);
    // One send span per publish call (the batch's carries its size), one receive span per
    // receive that brought something.
    const sends = otel.spans().filter((s) => s.name === 'send orders');
    expect(sends.map((s) => s.attributes['messaging.batch.message_count'])).toEqual([2, undefined]);
    expect(sends[1]!.attributes).toMatchObject({
      'queueport.event.id': 'e1',
      'queueport.publish.duplicate': true,
    });
    expect(otel.spans().filter((s) => s.name === 'receive orders')).toHaveLength(2);
    await queue.close();
  });

  it('counts a body that never reaches a handler as invalid and dead-lettered', async () => {
    const driver = new MemoryDriver({ clock });
    const queue = new Queue(driver, { clock, telemetry: telemetry(), logger: quietLogger });
    await driver.publish([
      { eventId: 'x', dedupeKey: 'x', body: '{"not":"an envelope"}', attributes: {}, delaySeconds: 0 },
    ]);
    expect(await queue.receive()).toEqual([]);
    expect(await otel.total('queueport.messages.invalid', { 'queueport.dead_lettered': true })).toBe(1);
    expect(
      await otel.total('queueport.messages.dead_lettered', { 'queueport.dead_letter.to': 'dead-letters' }),
    ).toBe(1);
    await queue.close();
  });

  it('measures handler duration, redeliveries and give-ups to a sink through a consumer', async () => {
    const queue = new Queue(new MemoryDriver({ clock }), {
      clock,
      telemetry: telemetry(),
      logger: quietLogger,
    });
    await queue.publishBatch([
      { envelope: envelope('ok') },
      { envelope: envelope('flaky') },
      { envelope: envelope('bad') },
    ]);
    const seen: string[] = [];
    const sunk: string[] = [];
    const consumer = queue.consume(
      async (delivery) => {
        const id = delivery.envelope.event_id;
        seen.push(id);
        await clock.advance(250); // the handler takes 250 ms of the Queue's clock
        if (id === 'flaky' && delivery.receiveCount === 1) throw new Error('first try fails');
        if (id === 'bad') throw new QueueError('INVALID_ARGUMENT', 'never acceptable');
      },
      {
        retry: { baseMs: 1_000, maxMs: 1_000, jitter: 0 },
        onDeadLetter: async (delivery) => void sunk.push(delivery.envelope.event_id),
        waitSeconds: 0,
      },
    );
    for (
      let i = 0;
      i < 200 && !(seen.filter((id) => id === 'flaky').length === 2 && sunk.length === 1);
      i++
    ) {
      await clock.advance(100);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await consumer.close();
    expect(sunk).toEqual([]); // the memory driver moves to its own dead letters: the sink is not used
    const processed = await otel.metric('messaging.process.duration');
    expect(processed.reduce((n, p) => n + p.value, 0)).toBe(4);
    expect(await otel.total('messaging.process.duration', { 'error.type': 'Error' })).toBe(1);
    expect(await otel.total('messaging.process.duration', { 'error.type': 'INVALID_ARGUMENT' })).toBe(1);
    expect(await otel.total('queueport.retries', { 'queueport.retry.kind': 'redelivery' })).toBe(1);
    expect(
      await otel.total('queueport.messages.dead_lettered', { 'queueport.dead_letter.to': 'dead-letters' }),
    ).toBe(1);
    expect(await otel.total('queueport.messages.acked')).toBe(2);
    await queue.close();
  });

  it('reads oldest-ready age, depth and dead letters through the admin, on the virtual clock', async () => {
    const admin = await memoryAdapter.admin!(new URL('memory://'), { clock });
    const url = await admin.createQueue({ name: `otel-stats-${crypto.randomUUID().slice(0, 8)}` });
    const queue = new Queue(await memoryAdapter.open(new URL(url), { clock }), {
      clock,
      logger: quietLogger,
    });
    let polls = 0;
    const counted = {
      stats: (u: string) => {
        polls++;
        return admin.stats(u);
      },
    };
    const stop = observeQueueStats({
      admin: counted,
      url,
      name: 'orders',
      meterProvider: otel.meterProvider,
    });
    const gauge = async (name: string) => {
      const points = await otel.metric(name, {
        'messaging.destination.name': 'orders',
        'messaging.system': 'memory',
      });
      return points.length === 0 ? undefined : points[0]!.value;
    };

    expect(await gauge('queueport.queue.oldest_ready_age')).toBeUndefined(); // empty: no age to observe
    expect(await gauge('queueport.queue.depth')).toBe(0);
    await queue.publish({ envelope: envelope('old') });
    await clock.advance(90_000);
    await queue.publish({ envelope: envelope('new') });
    await clock.advance(30_000);
    expect(await gauge('queueport.queue.oldest_ready_age')).toBe(120);
    expect(await gauge('queueport.queue.depth')).toBe(2);

    const [oldest] = await queue.receive();
    await oldest!.deadLetter('poison');
    expect(await gauge('queueport.queue.oldest_ready_age')).toBe(30);
    expect(await gauge('queueport.queue.depth')).toBe(1);
    expect(await gauge('queueport.queue.dead_letters')).toBe(1);

    expect(polls).toBe(7); // one stats() per collection (7 so far) serves all three gauges
    stop();
    await otel.points();
    expect(polls).toBe(7);
    await queue.close();
    await admin.deleteQueue(url);
    await admin.close();
  });
});
