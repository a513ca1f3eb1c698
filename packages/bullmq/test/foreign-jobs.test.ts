import { AdapterRegistry, type Delivery, encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BullmqDriver, bullmqAdapter } from '../src';
import { writeForeignJob } from './support/foreign-job';
import { bullmqProviderUrl } from './support/redis';
import {
  bullmqQueueUrl,
  deleteKeys,
  event,
  freshName,
  testRedis,
  uniquePrefix,
  until,
} from './support/unit-redis';

// Jobs written straight into Redis by someone else (another BullMQ version, a script, an
// attacker with Redis access), laid out as BullMQ lays a job out but with fields BullMQ's own
// parsing chokes on. One such job must never stop the good ones around it.
const prefix = uniquePrefix('foreign');
const redis = testRedis();
const closers: Array<() => Promise<unknown>> = [];
const registry = new AdapterRegistry([bullmqAdapter]);

afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  await deleteKeys(redis, `${prefix}:*`);
  await redis.quit();
});

async function openQueue() {
  const queueName = freshName();
  const driver = new BullmqDriver({ connection: redis, prefix, queueName, stalledIntervalMs: 100 });
  await driver.ensureExists();
  const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
  closers.push(() => queue.close());
  const base = `${prefix}:${queueName}`;
  return { queue, base, key: (suffix: string) => `${base}:${suffix}` };
}

const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

const validData = JSON.stringify({
  b: encodeEnvelope(prepareEnvelope({ event_id: 'foreign', type: 'foreign.job', payload: {} })),
});

const BAD_JOBS: Array<[string, Parameters<typeof writeForeignJob>[2]]> = [
  ['data that is not JSON', { fields: { data: '{not json' } }],
  ['opts that are not JSON', { fields: { opts: 'nope{' } }],
  ['a start count of "abc"', { fields: { ats: 'abc' } }],
  ['a start count of 1e309', { fields: { ats: '1e309' } }],
  ['data nested 100,000 deep', { fields: { data: deep } }],
  ['queueport-shaped data nested 100,000 deep', { fields: { data: `{"b":"x","a":${deep}}` } }],
  ['a job key that is a string, not a hash', { type: 'string' }],
  ['a job key that is a list, not a hash', { type: 'list' }],
  ['a start count of -5 (a receive count of -4)', { fields: { ats: '-5' } }],
  ['a numeric attribute', { fields: { data: JSON.stringify({ b: '{}', a: { x: 5 } }) } }],
  ['an own __proto__ attribute', { fields: { data: '{"b":"{}","a":{"__proto__":"x"}}' } }],
  ['attributes that are an array', { fields: { data: '{"b":"{}","a":["x"]}' } }],
  // BullMQ reads an empty parent back as absent, while its finishing script still decodes it.
  ['an empty parent field beside a valid envelope', { fields: { data: validData, parent: '' } }],
];

describe('a foreign job among good ones (consumed at concurrency 10)', () => {
  it.each(BAD_JOBS)(
    'dead-letters a job with %s, with a reason, and delivers the good ones',
    async (_, bad) => {
      const { queue, base, key } = await openQueue();
      await queue.publish(event('good-1'));
      await queue.publish(event('good-2'));
      const badId = await writeForeignJob(redis, base, bad);
      const invalid: string[] = [];
      queue.on('invalid-message', ({ messageId }) => invalid.push(messageId));
      const handled: string[] = [];
      const errors: string[] = [];
      const consumer = queue.consume(
        async (delivery: Delivery) => {
          handled.push(delivery.envelope.event_id);
        },
        { concurrency: 10, waitSeconds: 0.2 },
      );
      consumer.on('error', (failure) => errors.push(failure.kind));
      try {
        await until(
          'the good jobs to be handled and the foreign one dead-lettered',
          async () =>
            handled.length === 2 && (await redis.zscore(key('failed'), badId)) !== null ? true : undefined,
          { timeoutMs: 6_000 },
        );
      } finally {
        await consumer.close();
      }
      expect(handled.sort()).toEqual(['good-1', 'good-2']);
      expect(invalid).toEqual([badId]);
      expect(errors).toEqual([]);
      expect(await redis.lrange(key('active'), 0, -1)).toEqual([]);
      const reason = await redis.hget(key(badId), 'failedReason');
      expect(reason).toEqual(expect.stringMatching(/\S/));
      // The reason never echoes what the foreign job carried.
      expect(reason!.length).toBeLessThan(300);
    },
  );

  it('delivers a good job that only follows a bad one (both taken in one receive)', async () => {
    const { queue, base, key } = await openQueue();
    const badId = await writeForeignJob(redis, base, { fields: { opts: 'nope{' } });
    const invalid: string[] = [];
    queue.on('invalid-message', ({ messageId }) => invalid.push(messageId));
    await queue.publish(event('after'));
    const deliveries = await queue.receive({ maxMessages: 10, waitSeconds: 1 });
    expect(deliveries.map((d) => d.envelope.event_id)).toEqual(['after']);
    await deliveries[0]!.ack();
    expect(invalid).toEqual([badId]);
    expect(await redis.hget(key(badId), 'failedReason')).toBe('bullmq: its opts are not JSON');
    expect(await redis.zscore(key('failed'), badId)).not.toBeNull();
  });

  it.each([
    ['opts that are not JSON', { fields: { opts: 'nope{' } }],
    ['a job key that is a list', { type: 'list' as const }],
    ['a start count of "abc"', { fields: { ats: 'abc' } }],
  ])('acks a job whose completion fetched one with %s ahead, and dead-letters that one', async (_, bad) => {
    const { queue, base, key } = await openQueue();
    const invalid: string[] = [];
    queue.on('invalid-message', ({ messageId }) => invalid.push(messageId));
    await queue.publish(event('first'));
    const badId = await writeForeignJob(redis, base, bad);
    await queue.publish(event('last'));
    const [first] = await queue.receive({ maxMessages: 1 });
    expect(first!.envelope.event_id).toBe('first');
    // Completing it fetches the next job in the same script: the foreign one.
    await first!.ack();
    const rest = await queue.receive({ maxMessages: 10, waitSeconds: 1 });
    expect(rest.map((d) => d.envelope.event_id)).toEqual(['last']);
    expect(invalid).toEqual([badId]);
    expect(await redis.zscore(key('failed'), badId)).not.toBeNull();
    expect(await redis.zscore(key('completed'), first!.messageId)).not.toBeNull();
  });

  it('lists a dead-lettered foreign job among the dead letters, with its reason', async () => {
    const { queue, base, key } = await openQueue();
    queue.on('invalid-message', () => {});
    const bad = await writeForeignJob(redis, base, { fields: { opts: 'nope{', data: '{not json' } });
    const wrongType = await writeForeignJob(redis, base, { type: 'list' });
    await queue.publish(event('fine'));
    const [fine] = await queue.receive({ maxMessages: 10, waitSeconds: 1 });
    await fine!.deadLetter('the handler gave up');
    expect(await redis.zcard(key('failed'))).toBe(3);
    const admin = await registry.openAdmin(bullmqProviderUrl({ prefix }));
    closers.push(() => admin.close());
    const url = bullmqQueueUrl(base.slice(prefix.length + 1), { prefix });
    const dead = await admin.listDeadLetters!(url, { limit: 10 });
    expect(Object.fromEntries(dead.map((d) => [d.messageId, d.reason]))).toEqual({
      [bad]: 'bullmq: its opts are not JSON',
      [wrongType]: 'bullmq: its key holds a Redis list, not a hash',
      [fine!.messageId]: 'the handler gave up',
    });
    expect(dead.find((d) => d.messageId === fine!.messageId)).toMatchObject({
      eventId: 'fine',
      receiveCount: 1,
    });
    // Those BullMQ can read go back (the list's stand-in hash among them); one it cannot, stays.
    expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(2);
    expect(await redis.zrange(key('failed'), 0, -1)).toEqual([bad]);
  });
});
