import { AdapterRegistry, type Delivery, Queue, type QueueAdmin, type QueueError } from '@queueport/core';
import type { DriverMessage } from '@queueport/core/driver';
import { Queue as BullQueue } from 'bullmq';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BullmqDriver, type BullmqDriverOptions, bullmqAdapter, JOB_ID_RULES, jobIdFor } from '../src';
import { bullmqProviderUrl } from './support/redis';
import { deleteKeys, event, freshName, outgoing, testRedis, uniquePrefix, until } from './support/unit-redis';

const prefix = uniquePrefix('driver');
// Named, so the long-poll test can find this file's blocking connections among everyone else's.
const redis = testRedis({ connectionName: prefix });
const registry = new AdapterRegistry([bullmqAdapter]);
const closers: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  await deleteKeys(redis, `${prefix}:*`);
  await redis.quit();
});

type DriverOptions = Partial<Omit<BullmqDriverOptions, 'connection' | 'prefix'>>;

/** A driver on its own fresh queue, marked as existing as the adapter's open would. */
async function openDriver(options: DriverOptions = {}) {
  const queueName = options.queueName ?? freshName();
  const driver = new BullmqDriver({
    stalledIntervalMs: 100,
    ...options,
    connection: redis,
    prefix,
    queueName,
  });
  await driver.ensureExists();
  closers.push(() => driver.close());
  return { driver, queueName };
}

/** The portable Queue over a fresh driver; one attempt per call, so a refusal surfaces as it is. */
async function openQueue(options: DriverOptions = {}) {
  const { driver, queueName } = await openDriver(options);
  const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
  closers.push(() => queue.close());
  return { queue, driver, queueName, bull: bullQueue(queueName) };
}

/** BullMQ's own view of the queue, to check what queueport says against it. */
function bullQueue(queueName: string) {
  const bull = new BullQueue(queueName, { connection: redis, prefix });
  bull.on('error', () => {});
  closers.push(() => bull.close());
  return bull;
}

async function countsOf(bull: BullQueue) {
  return bull.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'completed', 'failed');
}

const NO_JOBS = { wait: 0, prioritized: 0, active: 0, delayed: 0, completed: 0, failed: 0 };

async function receiveAll(driver: BullmqDriver, count: number, leaseSeconds = 30): Promise<DriverMessage[]> {
  const taken: DriverMessage[] = [];
  await until(`${count} messages`, async () => {
    taken.push(
      ...(await driver.receive({ maxMessages: count - taken.length, leaseSeconds, waitSeconds: 1 })),
    );
    return taken.length >= count ? true : undefined;
  });
  return taken;
}

/** What `promise` settled with, or 'still pending' if it had not within `ms`. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still pending'>((resolve) => {
    timer = setTimeout(() => resolve('still pending'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function failure(outcome: { ok: boolean; error?: QueueError }) {
  return outcome.ok ? 'ok' : outcome.error?.code;
}

describe('dedupe within the window', () => {
  it('answers a repeated publish with duplicate: true and the first message id, and enqueues nothing', async () => {
    const { queue, bull } = await openQueue();
    const first = await queue.publish(event('e1'));
    expect(first.duplicate).toBe(false);
    const again = await queue.publish(event('e1'));
    expect(again).toMatchObject({ duplicate: true, messageId: first.messageId });
    const batch = await queue.publishBatch([event('e1'), event('e1')]);
    expect(batch.map((r) => [r.duplicate, r.messageId])).toEqual([
      [true, first.messageId],
      [true, first.messageId],
    ]);
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, wait: 1 });
    const [delivery] = await queue.receive();
    expect(delivery!.envelope.event_id).toBe('e1');
    await delivery!.ack();
    expect(await queue.receive()).toEqual([]);
  });

  it('never calls a first publish a duplicate, even of ids whose escaped forms look alike', async () => {
    const { queue, bull } = await openQueue();
    // Each event id beside the job id it derives to, published as an event id of its own: an
    // integer, a ":", the escape marker, a hashed long id. One escaping step must not make them meet.
    const marker = JOB_ID_RULES.escape ?? '_';
    const ids = ['42', 'a:b', `evt${marker}1`, 'x'.repeat(300)].flatMap((id) => [id, jobIdFor(id)]);
    const receipts = await queue.publishBatch(ids.map((id) => event(id)));
    expect(receipts.map((r) => r.duplicate)).toEqual(ids.map(() => false));
    expect(new Set(receipts.map((r) => r.messageId)).size).toBe(ids.length);
    // Within one batch the second of a pair is the duplicate, whatever its position.
    const mixed = await queue.publishBatch([event('m1'), event('m2'), event('m1'), event('42')]);
    expect(mixed.map((r) => r.duplicate)).toEqual([false, false, true, true]);
    expect((await countsOf(bull)).wait).toBe(ids.length + 2);
  });

  it('still calls a republish a duplicate after the job completed, within the window', async () => {
    const { queue, bull } = await openQueue();
    const first = await queue.publish(event('done'));
    const [delivery] = await queue.receive();
    await delivery!.ack();
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, completed: 1 });
    expect(await queue.publish(event('done'))).toMatchObject({ duplicate: true, messageId: first.messageId });
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, completed: 1 });
    expect(await queue.receive()).toEqual([]);
  });

  it('names each job after the event id it came from, as BullMQ stores it', async () => {
    const { queue, bull } = await openQueue();
    const receipt = await queue.publish(event('evt-7', { attributes: { tenant: 'acme' } }));
    // Readable in BullMQ's own tools: the job id starts with the event's job id.
    expect(receipt.messageId.startsWith(jobIdFor('evt-7'))).toBe(true);
    const job = await bull.getJob(receipt.messageId);
    expect(job).toMatchObject({ name: 'evt-7', data: { a: { tenant: 'acme' } } });
  });
});

describe('dedupe after the window (dedupeWindowSeconds: 1, keepCompletedSeconds defaulting to it)', () => {
  it('delivers a republish again once the window is over, although the completed job is still kept', async () => {
    const { queue, bull, queueName } = await openQueue({ dedupeWindowSeconds: 1 });
    const first = await queue.publish(event('late'));
    const [delivery] = await queue.receive();
    await delivery!.ack();
    const dedupeKey = `${prefix}:${queueName}:de:${jobIdFor('late')}`;
    await until('the dedupe key to expire', async () =>
      (await redis.exists(dedupeKey)) === 0 ? true : undefined,
    );
    const finishedOn = (await bull.getJob(first.messageId))!.finishedOn!;

    // Each publish has a job id of its own, so the kept job does not absorb the republish: only
    // the dedupe key did, and it is gone. Window semantics, as the manifest declares.
    const again = await queue.publish(event('late'));
    expect(again).toMatchObject({ duplicate: false });
    expect(again.messageId).not.toBe(first.messageId);
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, wait: 1, completed: 1 });

    // BullMQ removes jobs by age only when it finishes another one, never on a timer: the first
    // job outlives keepCompletedSeconds until the republished one completes.
    await until('keepCompletedSeconds to pass', () => (Date.now() > finishedOn + 1_100 ? true : undefined));
    expect(await bull.getJob(first.messageId)).toBeDefined();
    const [redelivered] = await queue.receive();
    expect(redelivered).toMatchObject({ envelope: { event_id: 'late' }, receiveCount: 1 });
    await redelivered!.ack();
    expect(await bull.getJob(first.messageId)).toBeUndefined();
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, completed: 1 });
  });
});

describe('stale receipts (1 s lease, stalled check every 100 ms)', () => {
  it('refuses ack, release and extension with LEASE_LOST and changes nothing; the new holder acks', async () => {
    const { driver, queueName } = await openDriver();
    const bull = bullQueue(queueName);
    await driver.publish([outgoing('a'), outgoing('b'), outgoing('c')]);
    const stale = await driver.receive({ maxMessages: 3, leaseSeconds: 1, waitSeconds: 0 });
    expect(stale.map((m) => m.receiveCount)).toEqual([1, 1, 1]);
    // The stalled checker hands the jobs back once their locks ran out; a receive takes them again.
    const fresh = await receiveAll(driver, 3);
    const byId = new Map(fresh.map((m) => [m.messageId, m]));
    expect([...byId.keys()].sort()).toEqual(stale.map((m) => m.messageId).sort());
    expect(fresh.map((m) => m.receiveCount)).toEqual([2, 2, 2]);
    const [a, b, c] = stale as [DriverMessage, DriverMessage, DriverMessage];

    expect((await driver.ack([a.receipt])).map(failure)).toEqual(['LEASE_LOST']);
    expect((await driver.release([{ receipt: b.receipt, delaySeconds: 0 }])).map(failure)).toEqual([
      'LEASE_LOST',
    ]);
    expect((await driver.extendLease([{ receipt: c.receipt, leaseSeconds: 60 }])).map(failure)).toEqual([
      'LEASE_LOST',
    ]);
    // Nothing moved: all three are still active under the new holder's locks.
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, active: 3 });

    const holders = [a, b, c].map((m) => byId.get(m.messageId)!.receipt);
    expect((await driver.extendLease([{ receipt: holders[2]!, leaseSeconds: 60 }])).map(failure)).toEqual([
      'ok',
    ]);
    expect((await driver.ack(holders)).map(failure)).toEqual(['ok', 'ok', 'ok']);
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, completed: 3 });
  });

  it('refuses a receipt it never handed out, and one already settled, with LEASE_LOST', async () => {
    const { driver } = await openDriver();
    await driver.publish([outgoing('once')]);
    const [message] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect((await driver.ack(['no-such-receipt'])).map(failure)).toEqual(['LEASE_LOST']);
    expect((await driver.ack([message!.receipt])).map(failure)).toEqual(['ok']);
    expect((await driver.ack([message!.receipt])).map(failure)).toEqual(['LEASE_LOST']);
    expect((await driver.release([{ receipt: message!.receipt, delaySeconds: 0 }])).map(failure)).toEqual([
      'LEASE_LOST',
    ]);
  });
});

describe('receive count and release', () => {
  it('rises on each redelivery, whether released or stalled', async () => {
    const { driver } = await openDriver();
    await driver.publish([outgoing('again')]);
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [message] = await receiveAll(driver, 1);
      counts.push(message!.receiveCount);
      await driver.release([{ receipt: message!.receipt, delaySeconds: 0 }]);
    }
    const [leased] = await receiveAll(driver, 1, 1);
    counts.push(leased!.receiveCount);
    const [stalled] = await receiveAll(driver, 1);
    counts.push(stalled!.receiveCount);
    expect(counts).toEqual([1, 2, 3, 4, 5]);
    expect(stalled!.messageId).toBe(leased!.messageId);
  });

  it('puts a job released with a delay in BullMQ’s delayed set, out of reach until due', async () => {
    const { queue, bull } = await openQueue();
    await queue.publish(event('later'));
    const [delivery] = await queue.receive();
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, active: 1 });
    await delivery!.release({ delaySeconds: 60 });
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, delayed: 1 });
    expect(await queue.receive({ waitSeconds: 0.2 })).toEqual([]);
    const [job] = await bull.getDelayed();
    expect(job!.name).toBe('later');
  });
});

describe('jobs an ack fetched ahead', () => {
  it('go to the next receive of the same lease, or back to waiting when the driver closes', async () => {
    const { driver, queueName } = await openDriver();
    const bull = bullQueue(queueName);
    await driver.publish([outgoing('x'), outgoing('y'), outgoing('z')]);
    const [x] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect((await driver.ack([x!.receipt])).map(failure)).toEqual(['ok']);
    const [y] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(y).toMatchObject({ body: outgoing('y').body, receiveCount: 1 });
    expect((await driver.ack([y!.receipt])).map(failure)).toEqual(['ok']);
    await driver.close();
    // z was fetched by y's ack and never handed out: closing must not leave it locked until it stalls.
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, wait: 1, completed: 2 });
    const { driver: other } = await openDriver({ queueName });
    const [z] = await other.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(z!.body).toBe(outgoing('z').body);
  });

  // An ack's fetch-ahead moves the next job to active, which BullMQ counts as a start. A job
  // handed back unseen must not count it, or it could reach a consumer's maxDeliveries unseen.
  it('counts a first delivery as 1, even after an ack fetched the job ahead and handed it back', async () => {
    const { driver, queueName } = await openDriver();
    const bull = bullQueue(queueName);
    await driver.publish([outgoing('first'), outgoing('second')]);
    const [first] = await driver.receive({ maxMessages: 1, leaseSeconds: 1, waitSeconds: 0 });
    await driver.ack([first!.receipt]);
    await until('the job fetched ahead to go back to waiting', async () =>
      (await countsOf(bull)).wait === 1 ? true : undefined,
    );
    const { driver: other } = await openDriver({ queueName });
    const [second] = await other.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(second!.body).toBe(outgoing('second').body);
    expect(second!.receiveCount).toBe(1);
  });
});

describe('jobs added by plain BullMQ', () => {
  it('are refused as invalid and dead-lettered, never handed to a handler', async () => {
    const { queue, bull } = await openQueue();
    const invalid: Array<{ messageId: string; deadLetter: boolean; code: string }> = [];
    queue.on('invalid-message', ({ messageId, deadLetter, error }) =>
      invalid.push({ messageId, deadLetter, code: error.code }),
    );
    const foreign = await bull.add('x', { foo: 1 });
    // Data shaped like queueport's own, but whose body is no envelope.
    const lookalike = await bull.add('y', { b: 'not an envelope' });
    await queue.publish(event('real'));

    const handled: string[] = [];
    const consumer = queue.consume(
      async (delivery: Delivery) => {
        handled.push(delivery.envelope.event_id);
      },
      { waitSeconds: 0.2 },
    );
    await until('both foreign jobs to be dead-lettered and the real one acked', async () => {
      const counts = await countsOf(bull);
      return counts.failed === 2 && counts.completed === 1 ? true : undefined;
    });
    await consumer.close();

    expect(handled).toEqual(['real']);
    expect(invalid.map((i) => i.messageId).sort()).toEqual([foreign.id, lookalike.id].sort());
    expect(invalid.every((i) => i.deadLetter && i.code === 'INVALID_ENVELOPE')).toBe(true);
    expect(await countsOf(bull)).toEqual({ ...NO_JOBS, completed: 1, failed: 2 });
    const failed = await bull.getFailed();
    expect(failed.map((job) => job.failedReason).every((reason) => typeof reason === 'string')).toBe(true);
    expect(
      failed.map((job) => job.data).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    ).toEqual([{ b: 'not an envelope' }, { foo: 1 }]);
  });
});

describe('options', () => {
  it('refuses keepCompletedSeconds below dedupeWindowSeconds, which would let dedupe forget early', () => {
    const build = (options: DriverOptions) => () => {
      const driver = new BullmqDriver({ connection: redis, queueName: 'never-opened', prefix, ...options });
      closers.push(() => driver.close());
      return driver;
    };
    for (const options of [
      { dedupeWindowSeconds: 60, keepCompletedSeconds: 59 },
      { keepCompletedSeconds: 299 },
      { dedupeWindowSeconds: 10, keepCompletedSeconds: 0 },
    ]) {
      expect(build(options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'keepCompletedSeconds' } }),
      );
    }
    expect(build({ dedupeWindowSeconds: 60, keepCompletedSeconds: 60 })).not.toThrow();
    expect(build({ dedupeWindowSeconds: 60 })().capabilities.dedupe).toEqual({
      kind: 'window',
      windowSeconds: 60,
      reportsDuplicates: true,
    });
  });

  it('refuses the same through a URL', async () => {
    const url = new URL(bullmqProviderUrl({ prefix, dedupeWindowSeconds: 60, keepCompletedSeconds: 30 }));
    url.pathname = '/refused';
    await expect(registry.openQueue(url)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'keepCompletedSeconds' },
    });
  });
});

describe('many receives at once', () => {
  // A consumer process may keep dozens of receives waiting on one driver: each listens on the
  // driver's close signal, and Node must not take that for a listener leak.
  it('warns about no listener leak with 30 receives in flight', async () => {
    const { driver } = await openDriver();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const polls = Array.from({ length: 30 }, () =>
        driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 1 }),
      );
      await driver.close();
      expect((await Promise.all(polls)).flat()).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('close', () => {
  async function blockedClients(): Promise<number> {
    const list = (await redis.client('LIST')) as string;
    return list
      .split('\n')
      .filter((line) => line.includes(`name=${prefix} `) && line.includes('cmd=bzpopmin')).length;
  }

  it('ends a long poll that is waiting, at once, and drops its blocking connection', async () => {
    const { driver } = await openDriver();
    const before = await blockedClients();
    const waiting = driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 20 });
    await until('the long poll to block in Redis', async () =>
      (await blockedClients()) > before ? true : undefined,
    );
    await driver.close();
    // Far below the 20 s the poll asked for: only an ended poll can answer in time.
    expect(await settledWithin(waiting, 5_000)).toEqual([]);
    await until('the blocking connection to go', async () =>
      (await blockedClients()) === before ? true : undefined,
    );
  });

  // After close the Queue refuses every call itself; the driver keeps no closed flag to refuse one.
  it('ends a long poll through the Queue too, when the Queue closes, and then refuses calls with CLOSED', async () => {
    const { queue } = await openQueue();
    const before = await blockedClients();
    const waiting = queue.receive({ waitSeconds: 20 });
    await until('the long poll to block in Redis', async () =>
      (await blockedClients()) > before ? true : undefined,
    );
    await queue.close();
    expect(await settledWithin(waiting, 5_000)).toEqual([]);
    await expect(queue.receive()).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

describe('a queue deleted through the admin', () => {
  let admin: QueueAdmin | undefined;
  afterAll(async () => {
    await admin?.close();
  });

  it('refuses publish and receive with NOT_FOUND', async () => {
    admin ??= await registry.openAdmin(bullmqProviderUrl({ prefix, stalledIntervalMs: 100 }));
    const url = await admin.createQueue({ name: freshName('deleted') });
    const queue = await registry.openQueue(url, { retry: { maxAttempts: 1 } });
    closers.push(() => queue.close());
    await admin.deleteQueue(url);
    await expect(queue.publish(event('after'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(queue.receive()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.stats(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
