import { randomUUID } from 'node:crypto';
import type * as port from '@queueport/core/driver';
import {
  checkAdminSettings,
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  eventIdOfBody,
  QueueError,
} from '@queueport/core/driver';
import type { ChannelModel, ConfirmChannel, GetMessage } from 'amqplib';
import { withChannel } from './connection';
import { deadLetterQueueOptions, deadLetterQueueOf as dlq, mainQueueOptions, readMessage } from './messages';

export interface RabbitmqAdminTarget {
  connection: ChannelModel;
  /** The queue's name from its URL; refuses URLs of another broker or vhost. */
  locate(url: string): string;
  /** The URL that opens `queueName` here, its redrive included. */
  urlOf(queueName: string, maxReceives: number): string;
}

/** A passive declare, on a channel its 404 may close. */
export const queueExists = (connection: ChannelModel, queue: string): Promise<boolean> =>
  withChannel(connection, (channel) => channel.checkQueue(queue)).then(
    () => true,
    (error: { code?: unknown }) => (error?.code === 404 ? false : Promise.reject(error)),
  );

/** Held unacked on `channel` until settled, or until it closes and puts them all back. */
async function getUpTo(channel: ConfirmChannel, queue: string, limit: number): Promise<GetMessage[]> {
  const got: GetMessage[] = [];
  for (let message: GetMessage | false = true as never; got.length < limit; got.push(message)) {
    message = await channel.get(queue, { noAck: false });
    if (!message) break;
  }
  return got;
}

/**
 * A queue is a quorum queue and its dead-letter queue; delay queues come and go with their
 * messages. Over AMQP the broker counts ready messages only, so depth (which counts leased and
 * delayed ones too) and the oldest age are not reported.
 */
export function rabbitmqAdmin({ connection, locate, urlOf }: RabbitmqAdminTarget): port.QueueAdmin {
  const existing = async (url: string): Promise<string> => {
    const name = locate(url);
    if (!(await queueExists(connection, name)))
      throw new QueueError('NOT_FOUND', `no rabbitmq queue named ${name}`);
    return name;
  };
  const on = <T>(
    use: (channel: ConfirmChannel, send: Parameters<Parameters<typeof withChannel>[1]>[1]) => Promise<T>,
  ) => withChannel(connection, use);
  return {
    async createQueue(request) {
      checkAdminSettings(request.settings, [], 'rabbitmq');
      // The same default as every admin's, so portable code never depends on one provider's.
      const redrive = request.redriveAfterReceives ?? DEFAULT_REDRIVE_AFTER_RECEIVES;
      if (!Number.isSafeInteger(redrive) || redrive < 1 || redrive > 1000) {
        throw new QueueError('INVALID_ARGUMENT', 'rabbitmq queues take redriveAfterReceives from 1 to 1000');
      }
      const url = urlOf(request.name, redrive);
      const name = locate(url);
      if (await queueExists(connection, name))
        throw new QueueError('INVALID_ARGUMENT', `rabbitmq queue ${name} exists`);
      await on(async (channel) => {
        await channel.assertQueue(dlq(name), deadLetterQueueOptions);
        await channel.assertQueue(name, mainQueueOptions(name, redrive));
      });
      return url;
    },
    async deleteQueue(url) {
      const name = await existing(url);
      await on(async (channel) => {
        await channel.deleteQueue(name);
        await channel.deleteQueue(dlq(name));
      });
    },
    async stats(url) {
      const dead = await existing(url).then((name) => on((channel) => channel.checkQueue(dlq(name))));
      return { depth: null, oldestReadyAgeSeconds: null, deadLetters: dead.messageCount };
    },
    async listDeadLetters(url, { limit }) {
      const name = await existing(url);
      const got = await on((channel) => getUpTo(channel, dlq(name), limit));
      return got.map((message) => {
        const { messageId, body, attributes, receivesBefore, reason, deadAt } = readMessage(message);
        const eventId = eventIdOfBody(body);
        return { messageId, eventId, body, attributes, receiveCount: receivesBefore, reason, at: deadAt };
      });
    },
    async redriveDeadLetters(url, { limit }) {
      const name = await existing(url);
      // Back as new messages (new ids, counts from zero), oldest first, each confirmed before its ack.
      return on(async (channel, send) => {
        const got = await getUpTo(channel, dlq(name), Math.max(0, limit));
        for (const message of got) {
          const { body, attributes } = readMessage(message);
          await send(name, { messageId: randomUUID(), body, attributes, receivesBefore: 0 });
          channel.ack(message);
        }
        return got.length;
      });
    },
    async purge(url) {
      const name = await existing(url);
      await on((channel) => channel.purgeQueue(name));
    },
    close: () => connection.close(),
  };
}
