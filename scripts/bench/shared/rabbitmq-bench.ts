/**
 * What the RabbitMQ scenarios share: one broker (the test services' own, skipped when
 * unreachable), fresh quorum queues on each side, the PostgreSQL pairs' envelopes of about 1 KB,
 * and bare amqplib (a confirm channel's sendToQueue, a prefetch consumer acking each delivery)
 * as the raw side of every pair.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AdapterRegistry, type QueueAdmin } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { RABBITMQ_BATCH, rabbitmqAdapter } from '@queueport/rabbitmq';
import amqplib from 'amqplib';
import {
  type OtelAware,
  type PairScenario,
  type Sample,
  type ScenarioText,
  type Side,
  timed,
} from '../runner';
import { benchPair, type FreshQueues } from './bench-pair';
import { subjectQueueOptions } from './bench-telemetry';
import { eachChunk, encoded } from './kilobyte-envelopes';

/** What `publishBatch` and a bare chunk of confirms carry per call: the adapter's own batch. */
export const PUBLISH_CHUNK = RABBITMQ_BATCH;
export const LEASE_SECONDS = 30;
const BROKER_URL = process.env.QUEUEPORT_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
/** rabbitmq:// URLs name a variable for the password, never the password: this one, in the open's env only. */
const PASSWORD_ENV = 'QUEUEPORT_BENCH_RABBITMQ_PASSWORD';
const redacted = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

type Connection = Awaited<ReturnType<typeof amqplib.connect>>;
type ConfirmChannel = Awaited<ReturnType<Connection['createConfirmChannel']>>;

export interface RabbitmqBench extends FreshQueues {
  messages: number;
  detail: string;
  /** A fresh quorum queue for the bare side, declared as the adapter declares its own. */
  freshBareQueue(): Promise<{ name: string; drop(): Promise<void> }>;
  /** The bare side's connection, kept across rounds, as the driver keeps its own. */
  connection: Connection;
  close(): Promise<void>;
}

/** `amqp://user:pass@host:port` as a rabbitmq provider URL, and the env its password needs. */
function rabbitmqProvider(): { url: string; env: Record<string, string | undefined> } {
  const parsed = new URL(BROKER_URL);
  const options = new URLSearchParams({ vhost: decodeURIComponent(parsed.pathname.slice(1)) || '/' });
  const env: Record<string, string | undefined> = { ...process.env };
  if (parsed.username) options.set('user', decodeURIComponent(parsed.username));
  if (parsed.password) {
    options.set('passwordEnv', PASSWORD_ENV);
    env[PASSWORD_ENV] = decodeURIComponent(parsed.password);
  }
  return { url: `rabbitmq://${parsed.host || '127.0.0.1:5672'}?${options}`, env };
}

export async function openRabbitmqBench(quick: boolean): Promise<RabbitmqBench | { skipped: string }> {
  let connection: Connection;
  try {
    connection = await amqplib.connect(BROKER_URL, { timeout: 3000 });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      skipped: `RabbitMQ unreachable at ${redacted(BROKER_URL)} (${reason}); set QUEUEPORT_RABBITMQ_URL`,
    };
  }
  connection.on('error', () => undefined);
  const provider = rabbitmqProvider();
  const registry = new AdapterRegistry([rabbitmqAdapter]);
  let admin: QueueAdmin | undefined;
  const close = async () => {
    await admin?.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
  };
  try {
    admin = await registry.openAdmin(provider.url, { env: provider.env });
    const opened = admin;
    const freshQueue = async () => {
      const url = await opened.createQueue({ name: `bench-${randomUUID().slice(0, 8)}` });
      const queue = await registry.openQueue(url, { env: provider.env, ...subjectQueueOptions() });
      return {
        queue,
        drop: async () => {
          await queue.close();
          await opened.deleteQueue(url);
        },
      };
    };
    const freshBareQueue = async () => {
      const name = `bench-bare-${randomUUID().slice(0, 8)}`;
      const channel = await connection.createChannel();
      try {
        await channel.assertQueue(name, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      } finally {
        await channel.close();
      }
      return {
        name,
        drop: async () => {
          const dropping = await connection.createChannel();
          await dropping.deleteQueue(name).finally(() => dropping.close());
        },
      };
    };
    const server = connection.connection.serverProperties as { version?: string };
    const amqplibVersion = amqplibPackageVersion();
    const bodyBytes = Buffer.byteLength(encoded('probe', 1)[0]!.body);
    const messages = quick ? 1000 : 10_000;
    return {
      messages,
      detail: `${messages} messages of ${bodyBytes} bytes per round, RabbitMQ ${server.version ?? '?'} at ${redacted(BROKER_URL)}, quorum queues on both sides, amqplib ${amqplibVersion}`,
      freshQueue,
      freshBareQueue,
      connection,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** amqplib's version from its package.json, which its exports do not list: found beside its entry. */
function amqplibPackageVersion(): string {
  const entry = createRequire(import.meta.url).resolve('amqplib');
  const manifest = JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** One persistent message to the queue, resolved once the broker confirms it, as the driver's publish waits. */
function confirmed(channel: ConfirmChannel, queue: string, message: OutgoingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.sendToQueue(
      queue,
      Buffer.from(message.body),
      {
        persistent: true,
        mandatory: true,
        messageId: randomUUID(),
        contentType: 'application/json',
        headers: { 'qp-attributes': JSON.stringify(message.attributes), 'qp-receives': 0 },
      },
      (error: unknown) => (error ? reject(error) : resolve()),
    );
  });
}

/** Publishes every message in chunks of PUBLISH_CHUNK, `inFlight` chunks at a time, each chunk's confirms awaited. */
function bareSendAll(
  channel: ConfirmChannel,
  queue: string,
  messages: readonly OutgoingMessage[],
  inFlight: number,
) {
  const sendChunk = (chunk: OutgoingMessage[]) => Promise.all(chunk.map((m) => confirmed(channel, queue, m)));
  return eachChunk(messages, PUBLISH_CHUNK, inFlight, sendChunk);
}

/** The raw side of a publish pair: bare confirmed sends, chunks as large as the adapter's, one at a time. */
export function bareConfirmedPublish(bench: RabbitmqBench): Side {
  return async (label) => {
    const queue = await bench.freshBareQueue();
    const channel = await bench.connection.createConfirmChannel();
    const messages = encoded(label, bench.messages);
    try {
      return await timed(() => bareSendAll(channel, queue.name, messages, 1));
    } finally {
      await channel.close().catch(() => undefined);
      await queue.drop();
    }
  };
}

/**
 * The raw side of a consume pair: one consumer with a prefetch of `concurrency`, acking each
 * delivery as it comes, until the queue is drained. Prefilled first, not timed.
 */
export function bareConsume(bench: RabbitmqBench, concurrency: number): Side {
  return async (label): Promise<Sample> => {
    const queue = await bench.freshBareQueue();
    const publisher = await bench.connection.createConfirmChannel();
    const channel = await bench.connection.createChannel();
    try {
      const total = await bareSendAll(publisher, queue.name, encoded(label, bench.messages), 10);
      await channel.prefetch(concurrency);
      return await timed(
        () =>
          new Promise<number>((resolve, reject) => {
            let done = 0;
            channel
              .consume(queue.name, (message) => {
                if (!message) return reject(new Error('the bare consumer was cancelled'));
                channel.ack(message);
                if (++done === total) resolve(done);
              })
              .catch(reject);
          }),
      );
    } finally {
      await channel.close().catch(() => undefined);
      await publisher.close().catch(() => undefined);
      await queue.drop();
    }
  };
}

/** A pair over the shared bench: the sides get it once set up; the scenario skips without RabbitMQ. */
export const rabbitmqPair = (
  text: ScenarioText & OtelAware,
  sides: (bench: RabbitmqBench) => { subject: Side; baseline: Side },
): PairScenario => benchPair(text, openRabbitmqBench, (bench) => bench.detail, sides);
