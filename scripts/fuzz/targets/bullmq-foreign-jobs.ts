/**
 * Foreign jobs in a BullMQ queue: job hashes written straight into Redis, laid out as BullMQ
 * lays a job out but with random and hostile fields (data and options that are not JSON, start
 * counts that are no count, attributes of the wrong type or named like a prototype, flow and
 * scheduler fields, keys of another Redis type), between two good jobs, consumed through the
 * portable Queue. Every receive ends within its bound, with deliveries or a typed QueueError;
 * the good jobs are always delivered, and every foreign job ends dead-lettered (or, where it
 * happens to be a valid message, delivered), never left active to starve the queue.
 *
 * Needs the test Redis: QUEUEPORT_REDIS_URL, or 127.0.0.1:6379.
 */
import { randomUUID } from 'node:crypto';
import { BullmqDriver } from '@queueport/bullmq';
import { encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterTarget, check, isTypedError, labelled, recordOutcome } from '../context';
import type { FuzzTarget } from './fuzz-target';

const MIN_CASES = 1000;
const PREFIX = 'qp-fuzz-foreign';
/** A receive waits no long poll here: a few seconds is a hang. */
const RECEIVE_BOUND_MS = 5_000;
/** Receives per case before the good jobs count as starved. */
const MAX_PASSES = 12;
const LEASE_SECONDS = 30;

// ----------------------------------------------------------------------------------------------
// What a foreign job carries

const oddText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.constantFrom(
    '',
    '{',
    '}',
    'null',
    '[]',
    '"x"',
    '{"b":1}',
    '1e309',
    '-5',
    'abc',
    'NaN',
    '\u0000',
    '{"__proto__":{}}',
  ),
);
const countText = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '2',
    '-5',
    '-1',
    'abc',
    '1e309',
    '1.5',
    ' 1',
    '9007199254740993',
    '99999999999999999999',
    '',
  ),
  fc.integer({ min: -10, max: 1_000_000 }).map(String),
);
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

const attributeValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant([])),
  },
);
const attributeName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'queueport.bridge', 'aws.x'),
  },
);
/** JSON text, built by hand so that an own `__proto__` key survives as one. */
const attributesJson = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.tuple(attributeName, attributeValue), { maxLength: 12 })
      .map(
        (entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom('null', '[]', '["x"]', '"x"', '5', DEEP) },
);
type Body = 'valid' | string;
const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('valid' as const) },
  { weight: 2, arbitrary: oddText },
);
const dataArb = fc.oneof(
  // queueport's own shape: a body (a real envelope or not) and attributes.
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('ours' as const), body: bodyArb, attributes: attributesJson }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('json' as const), json: fc.json({ maxDepth: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('text' as const), text: oddText }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deep' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'absent' as const }) },
);
const optional = <T>(arb: fc.Arbitrary<T>, weight = 3) =>
  fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const foreignArb = fc.record({
  type: fc.oneof(
    { weight: 10, arbitrary: fc.constant('hash' as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'string' as const,
        'list' as const,
        'set' as const,
        'zset' as const,
        'none' as const,
      ),
    },
  ),
  data: dataArb,
  opts: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('{"attempts":1}', '{}') },
    { weight: 1, arbitrary: oddText },
    { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  ats: optional(countText, 2),
  progress: optional(oddText),
  // A `parent` of "" (in oddText) is one BullMQ reads back as absent while its scripts still
  // decode it: the driver must find it in the raw hash, above all beside a valid envelope.
  parent: optional(fc.tuple(oddText, oddText), 6),
  rjk: optional(oddText, 6),
  delay: optional(oddText),
  priority: optional(fc.constantFrom('0', '1', '-1', 'abc', '2097152')),
  timestamp: optional(oddText),
  name: optional(oddText),
});
type Foreign = typeof foreignArb extends fc.Arbitrary<infer T> ? T : never;

const caseArb = fc.record({
  foreign: fc.array(foreignArb, { minLength: 1, maxLength: 3 }),
  maxMessages: fc.integer({ min: 1, max: 10 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

// ----------------------------------------------------------------------------------------------
// Writing it into Redis

let sequence = 0;
const run = randomUUID().slice(0, 8);

function validBody(eventId: string): string {
  return encodeEnvelope(prepareEnvelope({ event_id: eventId, type: 'fuzz.foreign', payload: { eventId } }));
}

function dataText(foreign: Foreign, id: string): string | undefined {
  const data = foreign.data;
  switch (data.kind) {
    case 'ours': {
      const body = data.body === 'valid' ? validBody(id) : data.body;
      return data.attributes === undefined
        ? JSON.stringify({ b: body })
        : `{"b":${JSON.stringify(body)},"a":${data.attributes}}`;
    }
    case 'json':
      return data.json;
    case 'text':
      return data.text;
    case 'deep':
      return DEEP;
    case 'absent':
      return undefined;
  }
}

async function writeForeign(redis: Redis, queueKey: string, foreign: Foreign): Promise<string> {
  const id = `foreign-${run}-${++sequence}`;
  const fields: Record<string, string | undefined> = {
    name: foreign.name ?? 'foreign',
    data: dataText(foreign, id),
    opts: foreign.opts,
    timestamp: foreign.timestamp ?? String(Date.now()),
    delay: foreign.delay ?? '0',
    priority: foreign.priority ?? '0',
    ats: foreign.ats,
    progress: foreign.progress,
    rjk: foreign.rjk,
    ...(foreign.parent ? { parentKey: foreign.parent[0], parent: foreign.parent[1] } : {}),
  };
  const flat = Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [k, v]));
  const jobKey = `${queueKey}:${id}`;
  const write = redis.multi();
  switch (foreign.type) {
    case 'hash':
      write.hset(jobKey, ...flat);
      break;
    case 'string':
      write.set(jobKey, JSON.stringify(fields));
      break;
    case 'list':
      write.rpush(jobKey, ...flat);
      break;
    case 'set':
      write.sadd(jobKey, ...flat);
      break;
    case 'zset':
      write.zadd(jobKey, ...flat.flatMap((member, index) => [index, member]));
      break;
    case 'none':
      break;
  }
  write.lpush(`${queueKey}:wait`, id);
  write.zadd(`${queueKey}:marker`, 0, '0');
  await write.exec();
  return id;
}

// ----------------------------------------------------------------------------------------------
// The property

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface Setup {
  redis: Redis;
  queue: Queue;
  queueKey: string;
}

async function open(): Promise<Setup> {
  const redis = new Redis(process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379', {
    maxRetriesPerRequest: null,
    commandTimeout: RECEIVE_BOUND_MS,
  });
  redis.on('error', () => {});
  const queueName = `q-${run}`;
  const driver = new BullmqDriver({ connection: redis, prefix: PREFIX, queueName, stalledIntervalMs: 100 });
  await driver.ensureExists();
  const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
  // Refusals are what this target expects; they are checked through Redis, not logged.
  queue.on('invalid-message', () => {});
  const queueKey = `${PREFIX}:${queueName}`;
  afterTarget(async () => {
    await queue.close();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${queueKey}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  });
  return { redis, queue, queueKey };
}

async function runCase(setup: Setup, c: Case): Promise<void> {
  const { redis, queue, queueKey } = setup;
  const good = [`good-${run}-${++sequence}`, `good-${run}-${++sequence}`];
  await queue.publish({ envelope: { event_id: good[0]!, type: 'fuzz.good', payload: {} } });
  const foreign: string[] = [];
  for (const f of c.foreign) foreign.push(await writeForeign(redis, queueKey, f));
  await queue.publish({ envelope: { event_id: good[1]!, type: 'fuzz.good', payload: {} } });

  const delivered = new Set<string>();
  let refused = 0;
  for (let pass = 0; pass < MAX_PASSES && !good.every((id) => delivered.has(id)); pass++) {
    try {
      const deliveries = await within(
        queue.receive({ maxMessages: c.maxMessages, waitSeconds: 0, leaseSeconds: LEASE_SECONDS }),
        RECEIVE_BOUND_MS,
        'receive',
      );
      recordOutcome(labelled(deliveries.length > 0 ? 'receive (deliveries)' : 'receive (none)', deliveries));
      for (const delivery of deliveries) {
        check(
          Number.isSafeInteger(delivery.receiveCount) && delivery.receiveCount >= 1,
          'a receive count below 1',
        );
        for (const [name, value] of Object.entries(delivery.attributes)) {
          check(typeof value === 'string', `attribute ${name} is not text`);
          check(!['__proto__', 'constructor', 'prototype'].includes(name), `attribute ${name} handed out`);
        }
        check(
          Object.getPrototypeOf(delivery.attributes) === Object.prototype,
          'attributes with another prototype',
        );
        delivered.add(delivery.envelope.event_id);
        await within(delivery.ack(), RECEIVE_BOUND_MS, 'ack');
      }
    } catch (error) {
      if (
        error instanceof Error &&
        (/still pending after/.test(error.message) || error.name === 'PropertyViolation')
      ) {
        throw error;
      }
      check(isTypedError(error), `receive threw untyped: ${String(error).slice(0, 200)}`);
      recordOutcome(labelled('receive', error));
      refused++;
    }
  }
  check(
    good.every((id) => delivered.has(id)),
    `good jobs starved (${refused} receives refused)`,
  );
  // Every foreign job was settled one way or the other: none is left waiting or locked.
  const [active, failedOrDone] = await Promise.all([
    redis.lrange(`${queueKey}:active`, 0, -1),
    Promise.all(
      foreign.map(
        async (id) =>
          (await redis.zscore(`${queueKey}:failed`, id)) !== null ||
          (await redis.zscore(`${queueKey}:completed`, id)) !== null,
      ),
    ),
  ]);
  check(
    active.length === 0,
    `${active.length} job(s) left active (${active.map((id) => (foreign.includes(id) ? `foreign ${foreign.indexOf(id)}` : good.includes(id) ? 'good' : 'earlier')).join(', ')})`,
  );
  foreign.forEach((id, index) => {
    check(
      failedOrDone[index] || delivered.has(id),
      `foreign job ${index} neither dead-lettered nor delivered`,
    );
  });
}

const target: FuzzTarget = {
  name: 'bullmq-foreign-jobs/consume',
  minCases: MIN_CASES,
  property: () => {
    let setup: Promise<Setup> | undefined;
    return fc.asyncProperty(caseArb, async (c) => {
      setup ??= open();
      await runCase(await setup, c);
    });
  },
};

export const targets: FuzzTarget[] = [target];
