import { type Delivery, Queue, QueueError, type QueueOptions } from '@queueport/core';
import { BRIDGE_ATTRIBUTE } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { batchOf, fillInbox, RecordingDriver, type RecordingDriverOptions } from './helpers/recording-driver';

// Queue retries use real time; a zero backoff keeps these tests from waiting at all.
const fastRetry: QueueOptions = { retry: { baseMs: 0, maxMs: 0, maxAttempts: 4 } };

async function setup(count: number, options: RecordingDriverOptions = {}, queueOptions = fastRetry) {
  const driver = new RecordingDriver(options);
  fillInbox(driver, count);
  const queue = new Queue(driver, queueOptions);
  const deliveries: Delivery[] = [];
  while (deliveries.length < count) {
    deliveries.push(
      ...(await queue.receive({ maxMessages: Math.min(count, driver.capabilities.batch.receive) })),
    );
  }
  return { driver, queue, deliveries };
}

const settle3 = { capabilities: { batch: { ...batchOf(10), settle: 3 } } };

describe('ackBatch and releaseBatch', () => {
  it('ack in chunks of batch.settle, one outcome per delivery, in order', async () => {
    const { driver, queue, deliveries } = await setup(7, settle3);
    const results = await queue.ackBatch(deliveries);
    expect(driver.callsOf('ack')).toEqual([['r-0', 'r-1', 'r-2'], ['r-3', 'r-4', 'r-5'], ['r-6']]);
    expect(results).toEqual(Array.from({ length: 7 }, () => ({ ok: true })));
    expect(deliveries.every((d) => d.settled)).toBe(true);
  });

  it('release in chunks of batch.settle, each with its own delay', async () => {
    const { driver, queue, deliveries } = await setup(7, settle3);
    const results = await queue.releaseBatch(
      deliveries.map((delivery, n) => ({ delivery, delaySeconds: n })),
    );
    expect(driver.callsOf('release')).toHaveLength(3);
    expect(driver.releases).toEqual(deliveries.map((d, n) => ({ receipt: d.receipt, delaySeconds: n })));
    expect(results).toHaveLength(7);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it('sends nothing for an empty batch', async () => {
    const { driver, queue } = await setup(0);
    expect(await queue.ackBatch([])).toEqual([]);
    expect(await queue.releaseBatch([])).toEqual([]);
    expect(driver.settleCalls).toEqual([]);
  });

  it('retries a retryable entry failure on its own, never re-sending the others', async () => {
    const { driver, queue, deliveries } = await setup(5, {
      settleOutcome: (_op, receipt, call) =>
        receipt === 'r-2' && call === 0
          ? { ok: false, error: new QueueError('UNAVAILABLE', 'shard busy') }
          : { ok: true },
    });
    const results = await queue.ackBatch(deliveries);
    expect(driver.callsOf('ack')).toEqual([['r-0', 'r-1', 'r-2', 'r-3', 'r-4'], ['r-2']]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(driver.acks.toSorted()).toEqual(['r-0', 'r-1', 'r-2', 'r-3', 'r-4']);
  });

  it('reports a non-retryable entry failure for that entry only, without a throw or a retry', async () => {
    const { driver, queue, deliveries } = await setup(4, {
      settleOutcome: (_op, receipt) =>
        receipt === 'r-1' ? { ok: false, error: new QueueError('LEASE_LOST', 'gone') } : { ok: true },
    });
    const results = await queue.releaseBatch(deliveries.map((delivery) => ({ delivery })));
    expect(driver.callsOf('release')).toEqual([['r-0', 'r-1', 'r-2', 'r-3']]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, true]);
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'LEASE_LOST' } });
    expect(deliveries.map((d) => d.settled)).toEqual([true, false, true, true]);
  });

  it("makes a single delivery's ack throw its entry's error", async () => {
    const { deliveries } = await setup(1, {
      settleOutcome: () => ({ ok: false, error: new QueueError('NOT_FOUND', 'queue deleted') }),
    });
    await expect(deliveries[0]!.ack()).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'queue deleted' });
    expect(deliveries[0]!.settled).toBe(false);
  });

  it("refuses another queue's delivery with INVALID_ARGUMENT before sending anything", async () => {
    const mine = await setup(2);
    const theirs = await setup(1);
    const mixed = [mine.deliveries[0]!, theirs.deliveries[0]!, mine.deliveries[1]!];
    await expect(mine.queue.ackBatch(mixed)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(mine.queue.releaseBatch(mixed.map((delivery) => ({ delivery })))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const forged = { ...mine.deliveries[0]! } as Delivery;
    await expect(mine.queue.ackBatch([forged])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(mine.driver.settleCalls).toEqual([]);
    expect(theirs.driver.settleCalls).toEqual([]);
  });

  it('refuses a bad release delay with DELAY_OUT_OF_RANGE before sending anything', async () => {
    const { driver, queue, deliveries } = await setup(3);
    for (const bad of [-1, 0.5, Number.NaN, 604_801]) {
      const entries = [
        { delivery: deliveries[0]!, delaySeconds: 5 },
        { delivery: deliveries[1]!, delaySeconds: bad },
        { delivery: deliveries[2]! },
      ];
      await expect(queue.releaseBatch(entries)).rejects.toMatchObject({ code: 'DELAY_OUT_OF_RANGE' });
    }
    expect(driver.settleCalls).toEqual([]);
    expect(driver.publishCalls).toEqual([]);
  });
});

describe('releaseBatch over a bridged driver', () => {
  const bridged = {
    capabilities: { delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false } },
  };

  it('releases native delays natively and re-sends longer ones as a new hop before acking the old', async () => {
    const { driver, queue, deliveries } = await setup(2, bridged);
    const results = await queue.releaseBatch([
      { delivery: deliveries[0]!, delaySeconds: 900 },
      { delivery: deliveries[1]!, delaySeconds: 3_600 },
    ]);
    expect(results).toEqual([{ ok: true }, { ok: true }]);
    expect(driver.releases).toEqual([{ receipt: 'r-0', delaySeconds: 900 }]);
    const [hop] = driver.published;
    expect(hop).toMatchObject({ eventId: 'evt_1', delaySeconds: 900 });
    expect(hop!.dedupeKey).not.toBe('evt_1');
    expect(hop!.attributes[BRIDGE_ATTRIBUTE]).toMatch(/^1:\d+:1:1$/);
    expect(driver.callsOf('ack')).toEqual([['r-1']]);
    expect(deliveries.every((d) => d.settled)).toBe(true);
  });

  it('keeps the old message when its replacement hop could not be published', async () => {
    const { driver, queue, deliveries } = await setup(1, {
      ...bridged,
      outcome: () => ({ ok: false, error: new QueueError('UNAUTHORIZED', 'no send permission') }),
    });
    const results = await queue.releaseBatch([{ delivery: deliveries[0]!, delaySeconds: 3_600 }]);
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    // Only the lease check before the re-send: nothing settled the message.
    expect(driver.settleCalls.map((call) => call.operation)).toEqual(['extendLease']);
    expect(deliveries[0]!.settled).toBe(false);
  });

  it('publishes no replacement hop when the provider says the lease is lost', async () => {
    const { driver, queue, deliveries } = await setup(1, {
      ...bridged,
      settleOutcome: (operation) =>
        operation === 'extendLease'
          ? { ok: false, error: new QueueError('LEASE_LOST', 'redelivered since') }
          : { ok: true },
    });
    const results = await queue.releaseBatch([{ delivery: deliveries[0]!, delaySeconds: 3_600 }]);
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'LEASE_LOST' } });
    expect(driver.publishCalls.flat().filter((m) => m.dedupeKey !== m.eventId)).toEqual([]);
    expect(driver.callsOf('ack')).toEqual([]);
  });
});
