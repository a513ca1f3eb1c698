import { randomUUID } from 'node:crypto';
import { BullmqDriver } from '@queueport/bullmq';
import { type EnvelopeInput, Queue } from '@queueport/core';
import { Queue as BullQueue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { redisPing } from '../../test-services/redis';
import { type PairScenario, type PairSession, timed } from '../runner';

/** What `addBulk` and `publishBatch` carry per call: the adapter's own publish batch. */
const PUBLISH_CHUNK = 500;
const DEDUPE_WINDOW_SECONDS = 300;
/** Both sides keep completed jobs as long as the adapter must (its dedupe window), so both pay BullMQ's cleanup. */
const KEEP_COMPLETED = { age: DEDUPE_WINDOW_SECONDS };

function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `bench_${label}_${i}`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR', note: 'x'.repeat(120) },
  }));
}

/** Raw jobs the size of the adapter's: the same bytes of data, in BullMQ's own shape. */
function rawJobs(count: number, bodyBytes: number) {
  const data = { b: 'x'.repeat(bodyBytes) };
  return Array.from({ length: count }, () => ({ name: 'payment.settled', data }));
}

interface Bench {
  connection: Redis;
  messages: number;
  /** A fresh queue name per side and round; obliterated after. */
  fresh(): string;
  drop(name: string): Promise<void>;
  driver(name: string): BullmqDriver;
  bodyBytes: number;
  prefix: string;
}

async function openBench(quick: boolean): Promise<Bench | { skipped: string }> {
  const url = process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379';
  try {
    await redisPing(url);
  } catch (error) {
    return { skipped: `no Redis at ${url}: ${(error as Error).message}` };
  }
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = `qp-bench-${randomUUID().slice(0, 8)}`;
  // The adapter's stored body for one of these envelopes, to size the raw side's data alike.
  const probe = new Queue(new BullmqDriver({ connection, queueName: 'probe', prefix }));
  const [sample] = await probe.publishBatch(inputs('probe', 1).map((envelope) => ({ envelope })));
  await probe.close();
  await new BullQueue('probe', { connection, prefix }).obliterate({ force: true });
  return {
    connection,
    prefix,
    messages: quick ? 1000 : 10_000,
    bodyBytes: sample!.sizeBytes,
    fresh: () => `q-${randomUUID().slice(0, 8)}`,
    drop: async (name) => {
      const queue = new BullQueue(name, { connection, prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    },
    driver: (name) =>
      new BullmqDriver({ connection, queueName: name, prefix, dedupeWindowSeconds: DEDUPE_WINDOW_SECONDS }),
  };
}

function detail(bench: Bench): string {
  return `${bench.messages} messages of ${bench.bodyBytes} bytes per round, bullmq 6.7.0, one ioredis connection, Redis at ${process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379'}`;
}

export const bullmqPublish: PairScenario = {
  kind: 'pair',
  name: 'bullmq-publish',
  description:
    "Publishing through the BullMQ adapter (the Queue's validation, encoding and digest, and the adapter's duplicate check in the same transaction) beside BullMQ's own addBulk of jobs as large.",
  subject: `Queue.publishBatch in ${PUBLISH_CHUNK}s through BullmqDriver`,
  baseline: `bullmq Queue.addBulk in ${PUBLISH_CHUNK}s, the same data size`,
  targets: [{ metric: 'ratio', atLeast: 0.9 }],
  async open({ quick }): Promise<PairSession | { skipped: string }> {
    const bench = await openBench(quick);
    if ('skipped' in bench) return bench;
    return {
      detail: detail(bench),
      subject: async (label) => {
        const name = bench.fresh();
        const queue = new Queue(bench.driver(name));
        const all = inputs(label, bench.messages).map((envelope) => ({ envelope }));
        try {
          return await timed(async () => {
            for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
              await queue.publishBatch(all.slice(i, i + PUBLISH_CHUNK));
            return all.length;
          });
        } finally {
          await queue.close();
          await bench.drop(name);
        }
      },
      baseline: async () => {
        const name = bench.fresh();
        const queue = new BullQueue(name, { connection: bench.connection, prefix: bench.prefix });
        const jobs = rawJobs(bench.messages, bench.bodyBytes);
        try {
          return await timed(async () => {
            for (let i = 0; i < jobs.length; i += PUBLISH_CHUNK)
              await queue.addBulk(jobs.slice(i, i + PUBLISH_CHUNK));
            return jobs.length;
          });
        } finally {
          await queue.close();
          await bench.drop(name);
        }
      },
      close: () => bench.connection.quit().then(() => undefined),
    };
  },
};

function consumeScenario(concurrency: number): PairScenario {
  return {
    kind: 'pair',
    name: `bullmq-consume-${concurrency}`,
    description: `Consuming through the BullMQ adapter (receive in bursts, the Queue's decoding and checks, the consumer's lease keeping, ack) beside BullMQ's own Worker at the same concurrency, both with a handler that does nothing.`,
    subject: `queue.consume, concurrency ${concurrency}, no-op handler (BullmqDriver)`,
    baseline: `bullmq Worker, concurrency ${concurrency}, no-op processor`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    async open({ quick }): Promise<PairSession | { skipped: string }> {
      const bench = await openBench(quick);
      if ('skipped' in bench) return bench;
      return {
        detail: detail(bench),
        subject: async (label) => {
          const name = bench.fresh();
          const queue = new Queue(bench.driver(name));
          const all = inputs(label, bench.messages).map((envelope) => ({ envelope }));
          for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
            await queue.publishBatch(all.slice(i, i + PUBLISH_CHUNK));
          try {
            return await timed(
              () =>
                new Promise<number>((resolve, reject) => {
                  let done = 0;
                  const consumer = queue.consume(
                    async () => {
                      if (++done === all.length)
                        setImmediate(() => void consumer.close().then(() => resolve(done), reject));
                    },
                    { concurrency, leaseSeconds: 30 },
                  );
                }),
            );
          } finally {
            await queue.close();
            await bench.drop(name);
          }
        },
        baseline: async () => {
          const name = bench.fresh();
          const prefix = bench.prefix;
          const producer = new BullQueue(name, { connection: bench.connection, prefix });
          const jobs = rawJobs(bench.messages, bench.bodyBytes);
          for (let i = 0; i < jobs.length; i += PUBLISH_CHUNK)
            await producer.addBulk(jobs.slice(i, i + PUBLISH_CHUNK));
          try {
            return await timed(
              () =>
                new Promise<number>((resolve) => {
                  let done = 0;
                  const worker = new Worker(name, async () => {}, {
                    connection: bench.connection,
                    prefix,
                    concurrency,
                    removeOnComplete: KEEP_COMPLETED,
                  });
                  worker.on('completed', () => {
                    if (++done === jobs.length) void worker.close().then(() => resolve(done));
                  });
                }),
            );
          } finally {
            await producer.close();
            await bench.drop(name);
          }
        },
        close: () => bench.connection.quit().then(() => undefined),
      };
    },
  };
}

export const bullmqConsume10 = consumeScenario(10);
export const bullmqConsume50 = consumeScenario(50);
