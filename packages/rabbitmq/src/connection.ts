import { importWithPeers, QueueError } from '@queueport/core/driver';
import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { publishOptions, type Stored } from './messages';
import type { ParsedRabbitmqUrl } from './rabbitmq-url';

const ADAPTER = { scheme: 'rabbitmq', packageName: '@queueport/rabbitmq', peers: ['amqplib'] };

/** Named, to be found in `rabbitmqctl list_connections`; credentials as options, never a URL amqplib could quote. */
export async function connect(parsed: ParsedRabbitmqUrl, name: string): Promise<ChannelModel> {
  // Loaded at the first open: the adapter's definition reads without it, and a missing one names the install line.
  const amqp = await importWithPeers(ADAPTER, () => import('amqplib'));
  const { host: hostname, port, vhost, user: username, password, tls, timeoutMs } = parsed;
  const connection = await amqp.connect(
    { protocol: tls ? 'amqps' : 'amqp', hostname, port, vhost, username, password, heartbeat: 30 },
    { timeout: timeoutMs, clientProperties: { connection_name: name }, servername: hostname },
  );
  // A socket error after connect() settled is a 'close' too; unheard, it would crash the process.
  return connection.on('error', () => undefined);
}

export type Send = (queue: string, stored: Stored) => Promise<void>;

/** A publish counts once confirmed: nacked, or its channel gone, it is UNAVAILABLE; returned unroutable, NOT_FOUND. */
function sender(channel: ConfirmChannel): Send {
  const returned = new Set<string>();
  channel.on('return', (message) => returned.add(message.properties.messageId));
  return (queue, stored) =>
    new Promise((resolve, reject) => {
      channel.sendToQueue(queue, Buffer.from(stored.body), publishOptions(stored), (error: unknown) => {
        if (returned.delete(stored.messageId))
          reject(new QueueError('NOT_FOUND', `rabbitmq: no queue ${queue}`));
        else if (error)
          reject(new QueueError('UNAVAILABLE', `rabbitmq: a publish to ${queue} was not confirmed`));
        else resolve();
      });
    });
}

/** Runs `use` on a channel of its own, which a refusal (a 404) may close without harming anything else. */
export async function withChannel<T>(
  connection: ChannelModel,
  use: (c: ConfirmChannel, send: Send) => Promise<T>,
) {
  const channel = (await connection.createConfirmChannel()).on('error', () => undefined);
  try {
    return await use(channel, sender(channel));
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/** One connection of a driver; `generation` tells its receipts from any before it. */
export interface Link {
  readonly generation: number;
  readonly connection: ChannelModel;
  readonly publisher: ConfirmChannel;
  readonly send: Send;
  /** Takes and settles deliveries: a delivery tag means something only on its own channel. */
  readonly consumer: Channel;
  alive: boolean;
  /** Settles once any part is gone; then all of it is. */
  readonly lost: Promise<void>;
}

async function openLink(parsed: ParsedRabbitmqUrl, name: string, generation: number): Promise<Link> {
  const connection = await connect(parsed, name);
  try {
    const [publisher, consumer] = [await connection.createConfirmChannel(), await connection.createChannel()];
    // A waiting receive's consumer gets one delivery at most: nothing is pushed that nobody asked for.
    await consumer.prefetch(1);
    let end!: () => void;
    const lost = new Promise<void>((resolve) => (end = resolve));
    const link: Link = {
      generation,
      connection,
      publisher,
      send: sender(publisher),
      consumer,
      alive: true,
      lost,
    };
    for (const part of [connection, publisher, consumer]) {
      part
        .on('error', () => undefined)
        .on('close', () => {
          // A channel the broker closed (a 404) takes its connection with it: one state, never half.
          link.alive = false;
          end();
          connection.close().catch(() => undefined);
        });
    }
    return link;
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/** The driver's link, opened at the first call and again at the first call after it was lost. */
export function linkSource(parsed: ParsedRabbitmqUrl, name: string) {
  let current: Promise<Link> | undefined;
  let generation = 0;
  const reopen = (stale: Promise<Link> | undefined) => {
    // Opens never overlap; a failed one is retried by the next call, not remembered.
    if (current !== stale) return current!;
    current = openLink(parsed, name, ++generation);
    current.catch(() => undefined);
    return current;
  };
  return {
    link: (): Promise<Link> => {
      const live = current;
      return live
        ? live.then(
            (l) => (l.alive ? l : reopen(live)),
            () => reopen(live),
          )
        : reopen(live);
    },
    async close(): Promise<void> {
      const link = await current?.catch(() => undefined);
      current = undefined;
      await link?.connection.close().catch(() => undefined);
    },
  };
}
