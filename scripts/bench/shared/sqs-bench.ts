/**
 * What the SQS scenarios share: an SQS server of their own (moto_server through the test-services
 * helper), one SQSClient both sides of every pair use, a fresh queue per side and round (moto
 * slows as a queue deepens), envelopes that encode to 1 KB, and the raw SDK calls that do the
 * adapter's work by hand: SendMessageBatch, ReceiveMessage + DeleteMessageBatch.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  type MessageSystemAttributeName,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type EnvelopeInput, Queue } from '@queueport/core';
import { SqsDriver } from '@queueport/sqs';
import { ensureServices } from '../../test-services/ensure-services';
import { type PairScenario, progress, type Sample, type ScenarioText, type Side, timed } from '../runner';
import { benchPair } from './bench-pair';
import { subjectQueueOptions } from './bench-telemetry';
import { drainInLoops } from './drain-loops';
import { concurrently, outgoingMessages } from './fixtures';

/** SQS's own batch limit, for publish, receive and delete alike. */
export const BATCH = 10;
/** Calls in flight on each side: the "concurrency 10". */
export const CONCURRENCY = 10;
/** Bytes of every body: the encoded envelope on the adapter's side, the same bytes on the raw one. */
export const BODY_BYTES = 1024;
/** The lease both sides take on receive: the Queue's default. */
export const LEASE_SECONDS = 30;
/** Both sides ask SQS not to wait: the queue holds what they drain before they start. */
export const WAIT_SECONDS = 0;
/** What SqsDriver.receive asks SQS for besides the body and message attributes. */
export const SYSTEM_ATTRIBUTES: MessageSystemAttributeName[] = [
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'MessageGroupId',
];
const REGION = 'us-east-1';

export interface SqsBench {
  client: SQSClient;
  endpoint: string;
  /** moto, local-aws-sqs or external (QUEUEPORT_SQS_ENDPOINT). */
  server: string;
  /** Messages per side and round. */
  messages: number;
  /** A new standard queue, empty; returns its URL. */
  fresh(): Promise<string>;
  drop(queueUrl: string): Promise<void>;
  /** The portable Queue over an SqsDriver on that queue, sharing the bench's client: the subject's (traced under --otel). */
  queue(queueUrl: string): Promise<Queue>;
  close(): Promise<void>;
}

/**
 * `count` envelopes whose canonical encoding is exactly BODY_BYTES long: the note pads each one
 * (the envelope's timestamp has a fixed width, so the Queue's own encoding at publish time is
 * as long as this one).
 */
export function inputs(label: string, count: number): EnvelopeInput[] {
  return Array.from({ length: count }, (_, i) => {
    const input = (note: string): EnvelopeInput => ({
      event_id: `bench_sqs_${label}_${i}`,
      type: 'payment.settled',
      payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR', note },
    });
    const [probe] = outgoingMessages([input('')]);
    return input('x'.repeat(BODY_BYTES - Buffer.byteLength(probe!.body, 'utf8')));
  });
}

/** The same envelopes encoded ahead (untimed): what the raw side sends, byte for byte as long. */
export function bodies(label: string, count: number): string[] {
  return outgoingMessages(inputs(label, count)).map((message) => message.body);
}

export function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function openSqsBench(quick: boolean): Promise<SqsBench | { skipped: string }> {
  let handle: Awaited<ReturnType<typeof ensureServices>>;
  try {
    handle = await ensureServices({ need: ['sqs'], log: (line) => progress(`sqs: ${line}`) });
  } catch (error) {
    return { skipped: `no SQS server: ${(error as Error).message}` };
  }
  const { sqsEndpoint: endpoint, sqsServer: server, sqsUnavailable } = handle.services;
  if (!endpoint) {
    await handle.stop();
    return { skipped: `no SQS server: ${(sqsUnavailable ?? 'unavailable').split('\n')[0]}` };
  }
  const client = new SQSClient({
    region: REGION,
    endpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const prefix = `qp-bench-${randomUUID().slice(0, 8)}`;
  let made = 0;
  return {
    client,
    endpoint,
    server: server ?? 'external',
    messages: quick ? 40 : 200,
    async fresh() {
      const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: `${prefix}-${made++}` }));
      if (!QueueUrl) throw new Error('CreateQueue returned no URL');
      return QueueUrl;
    },
    async drop(queueUrl) {
      await client.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    },
    async queue(queueUrl) {
      return new Queue(await SqsDriver.open({ client, queue: queueUrl }), subjectQueueOptions());
    },
    async close() {
      client.destroy();
      await handle.stop();
    },
  };
}

function sdkVersion(): string {
  try {
    return (createRequire(import.meta.url)('@aws-sdk/client-sqs/package.json') as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

export function benchDetail(bench: SqsBench, queues: number): string {
  const where = queues === 1 ? 'a fresh standard queue' : `each of ${queues} fresh standard queues in turn`;
  return `${bench.messages} messages of ${BODY_BYTES} bytes per side and round on ${where} (only the work on them timed), batches of ${BATCH}, ${CONCURRENCY} calls in flight, one SQSClient (@aws-sdk/client-sqs ${sdkVersion()}) for both sides, ${bench.server} at ${bench.endpoint}${bench.server === 'moto' ? ' (it answers every call with Connection: close, so each call opens a TCP connection, on both sides alike)' : ''}`;
}

/**
 * A pair over the shared bench, each side working through `queues` fresh queues per round; the
 * scenario skips, with the reason, where no SQS server starts.
 */
export const sqsPair = (
  text: ScenarioText,
  queues: number,
  sides: (bench: SqsBench) => { subject: Side; baseline: Side },
): PairScenario =>
  // Every SQS pair's subject is the portable Queue (`bench.queue`).
  benchPair({ otel: 'subject', ...text }, openSqsBench, (bench) => benchDetail(bench, queues), sides);

/** One sample for the work of several: operations, wall time and CPU time added up. */
export function sum(samples: readonly Sample[]): Sample {
  return samples.reduce((a, b) => ({ ops: a.ops + b.ops, ms: a.ms + b.ms, cpuUs: a.cpuUs + b.cpuUs }), {
    ops: 0,
    ms: 0,
    cpuUs: 0,
  });
}

/**
 * Runs `work` on `count` fresh queues one after another (each deleted after, whatever happened)
 * and adds up what was timed: a longer sample from queues that stay shallow. Only what `work`
 * times counts: creating, filling and deleting queues does not.
 */
export async function onFreshQueues(
  bench: SqsBench,
  count: number,
  work: (queueUrl: string, index: number) => Promise<Sample>,
): Promise<Sample> {
  const samples: Sample[] = [];
  for (let index = 0; index < count; index++) {
    const queueUrl = await bench.fresh();
    try {
      samples.push(await work(queueUrl, index));
    } finally {
      await bench.drop(queueUrl);
    }
  }
  return sum(samples);
}

/** The portable Queue over each of `count` fresh queues; each closed (driver and all) and deleted after. */
export function onFreshPortableQueues(
  bench: SqsBench,
  count: number,
  work: (queue: Queue, index: number) => Promise<Sample>,
): Promise<Sample> {
  return onFreshQueues(bench, count, async (queueUrl, index) => {
    const queue = await bench.queue(queueUrl);
    try {
      return await work(queue, index);
    } finally {
      await queue.close();
    }
  });
}

/** Publishes through the Queue: batches of ten, CONCURRENCY of them in flight. */
export async function publishThroughQueue(
  queue: Queue,
  envelopes: readonly EnvelopeInput[],
): Promise<number> {
  await concurrently(chunks(envelopes), CONCURRENCY, async (chunk) => {
    await queue.publishBatch(chunk.map((envelope) => ({ envelope })));
  });
  return envelopes.length;
}

/** The raw publish: SendMessageBatch of ten entries, CONCURRENCY calls in flight. */
export async function rawSendAll(bench: SqsBench, queueUrl: string, all: readonly string[]): Promise<number> {
  await concurrently(chunks(all), CONCURRENCY, async (chunk) => {
    const answer = await bench.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    if (answer.Failed?.length) throw new Error(`SendMessageBatch failed: ${answer.Failed[0]!.Code}`);
  });
  return all.length;
}

/** The raw consume: ReceiveMessage (what the driver asks for) + DeleteMessageBatch, in loops. */
export function rawDrain(bench: SqsBench, queueUrl: string, total: number): Promise<number> {
  return drainInLoops(
    total,
    async () =>
      (
        await bench.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: BATCH,
            VisibilityTimeout: LEASE_SECONDS,
            WaitTimeSeconds: WAIT_SECONDS,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: SYSTEM_ATTRIBUTES,
          }),
        )
      ).Messages ?? [],
    (message) => message.MessageId ?? '',
    async (batch) => {
      const answer = await bench.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((m, i) => ({
            Id: String(i),
            ReceiptHandle: m.ReceiptHandle!,
          })),
        }),
      );
      if (answer.Failed?.length) throw new Error(`DeleteMessageBatch failed: ${answer.Failed[0]!.Code}`);
    },
    { concurrency: CONCURRENCY },
  );
}

/** The raw side of every consume pair: each queue filled by raw sends (untimed), then drained raw. */
export function rawReceiveAck(bench: SqsBench, queues: number): Side {
  return (label) =>
    onFreshQueues(bench, queues, async (queueUrl, index) => {
      const total = await rawSendAll(bench, queueUrl, bodies(`${label}q${index}`, bench.messages));
      return timed(() => rawDrain(bench, queueUrl, total));
    });
}

/** The raw side of the publish pair: the same bodies, encoded ahead, sent raw. */
export function rawPublish(bench: SqsBench, queues: number): Side {
  return (label) =>
    onFreshQueues(bench, queues, (queueUrl, index) => {
      const all = bodies(`${label}q${index}`, bench.messages);
      return timed(() => rawSendAll(bench, queueUrl, all));
    });
}
