/**
 * What the BullMQ scenarios share: one Redis connection, a key prefix of their own, the same
 * small envelopes, and BullMQ's own addBulk and Worker as the raw side of every pair.
 */
import { randomUUID } from 'node:crypto';
import { BullmqDriver } from '@queueport/bullmq';
import { type EnvelopeInput, Queue } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { Queue as BullQueue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { redisPing } from '../../test-services/redis';
import {
  type OtelAware,
  type PairScenario,
  type Sample,
  type ScenarioText,
  type Side,
  timed,
} from '../runner';
import { benchPair } from './bench-pair';
import { outgoingMessages } from './fixtures';

/** What `addBulk` and `publishBatch` carry per call: the adapter's own publish batch. */
export const PUBLISH_CHUNK = 500;
const DEDUPE_WINDOW_SECONDS = 300;
/** Both sides keep completed jobs as long as the adapter does (its dedupe window), so both pay BullMQ's cleanup. */
const KEEP_COMPLETED = { age: DEDUPE_WINDOW_SECONDS };
const REDIS_URL = process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `bench_${label}_${i}`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR', note: 'x'.repeat(120) },
  }));
}

/** What the Queue hands a driver: envelopes validated and encoded ahead, so only the adapter is timed. */
export function encoded(label: string, count: number): OutgoingMessage[] {
  return outgoingMessages(inputs(label, count));
}

export interface BullmqBench {
  connection: Redis;
  prefix: string;
  messages: number;
  /** Bytes of one envelope as the adapter stores it: the raw jobs carry as much. */
  bodyBytes: number;
  /** A fresh queue name per side and round; dropped after. */
  fresh(): string;
  drop(name: string): Promise<void>;
  driver(name: string): BullmqDriver;
  close(): Promise<void>;
}

export async function openBullmqBench(quick: boolean): Promise<BullmqBench | { skipped: string }> {
  try {
    await redisPing(REDIS_URL);
  } catch (error) {
    return { skipped: `no Redis at ${REDIS_URL}: ${(error as Error).message}` };
  }
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `qp-bench-${randomUUID().slice(0, 8)}`;
  const driver = (name: string) =>
    new BullmqDriver({ connection, queueName: name, prefix, dedupeWindowSeconds: DEDUPE_WINDOW_SECONDS });
  const drop = async (name: string) => {
    const queue = new BullQueue(name, { connection, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
    await connection.del(`${prefix}:${name}:queueport`);
  };
  const probe = new Queue(driver('probe'));
  const [sample] = await probe.publishBatch(inputs('probe', 1).map((envelope) => ({ envelope })));
  await probe.close();
  await drop('probe');
  return {
    connection,
    prefix,
    messages: quick ? 1000 : 10_000,
    bodyBytes: sample!.sizeBytes,
    fresh: () => `q-${randomUUID().slice(0, 8)}`,
    drop,
    driver,
    close: () => connection.quit().then(() => undefined),
  };
}

export function benchDetail(bench: BullmqBench): string {
  return `${bench.messages} messages of ${bench.bodyBytes} bytes per round, bullmq 6.7.0, one ioredis connection, Redis at ${REDIS_URL}`;
}

/** Raw jobs the size of the adapter's: the same bytes of data, in BullMQ's own shape. */
function rawJobs(count: number, bodyBytes: number) {
  const data = { b: 'x'.repeat(bodyBytes) };
  return Array.from({ length: count }, () => ({ name: 'payment.settled', data }));
}

async function addAll(queue: BullQueue, bench: BullmqBench): Promise<number> {
  const jobs = rawJobs(bench.messages, bench.bodyBytes);
  for (let i = 0; i < jobs.length; i += PUBLISH_CHUNK) await queue.addBulk(jobs.slice(i, i + PUBLISH_CHUNK));
  return jobs.length;
}

/** The raw side of a publish pair: BullMQ's addBulk in chunks as large as the adapter's. */
export function rawAddBulk(bench: BullmqBench): Side {
  return async () => {
    const name = bench.fresh();
    const queue = new BullQueue(name, { connection: bench.connection, prefix: bench.prefix });
    try {
      return await timed(() => addAll(queue, bench));
    } finally {
      await queue.close();
      await bench.drop(name);
    }
  };
}

/** The raw side of a consume pair: BullMQ's Worker with a processor that does nothing. */
export function rawWorker(bench: BullmqBench, concurrency: number): Side {
  return async (): Promise<Sample> => {
    const name = bench.fresh();
    const producer = new BullQueue(name, { connection: bench.connection, prefix: bench.prefix });
    const total = await addAll(producer, bench);
    try {
      return await timed(
        () =>
          new Promise<number>((resolve) => {
            let done = 0;
            const worker = new Worker(name, async () => {}, {
              connection: bench.connection,
              prefix: bench.prefix,
              concurrency,
              removeOnComplete: KEEP_COMPLETED,
            });
            worker.on('completed', () => {
              if (++done === total) void worker.close().then(() => resolve(done));
            });
          }),
      );
    } finally {
      await producer.close();
      await bench.drop(name);
    }
  };
}

/** A pair over the shared bench: the sides get it once set up; the scenario skips without Redis. */
export const bullmqPair = (
  text: ScenarioText & OtelAware,
  sides: (bench: BullmqBench) => { subject: Side; baseline: Side },
): PairScenario => benchPair(text, openBullmqBench, benchDetail, sides);

/** Runs `work` on a fresh queue of its own, and drops the queue after, whatever happened. */
export async function onFreshQueue<T>(
  bench: BullmqBench,
  open: (name: string) => T & { close(): Promise<void> },
  work: (opened: T) => Promise<Sample>,
): Promise<Sample> {
  const name = bench.fresh();
  const opened = open(name);
  try {
    return await work(opened);
  } finally {
    await opened.close();
    await bench.drop(name);
  }
}
