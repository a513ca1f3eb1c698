import { randomUUID } from 'node:crypto';
import type * as port from '@queueport/core/driver';
import {
  defineAdapter,
  guardedAdmin,
  normalizeError,
  QueueError,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import type { ChannelModel } from 'amqplib';
import { classifyRabbitmqError } from './classify-error';
import { connect, linkSource, withChannel } from './connection';
import { mainQueueOptions } from './messages';
import { queueExists, rabbitmqAdmin } from './rabbitmq-admin';
import { RabbitmqDriver } from './rabbitmq-driver';
import { type ParsedRabbitmqUrl, parseRabbitmqUrl, rabbitmqUrls } from './rabbitmq-url';

const parse = (url: URL, context: port.OpenContext) => parseRabbitmqUrl(url, context.env ?? process.env);

/** A connection handed to `use`; a refused open ends it, and every error is in the port's terms. */
async function withConnection<T>(
  parsed: ParsedRabbitmqUrl,
  name: string,
  use: (c: ChannelModel) => Promise<T>,
) {
  let connection: ChannelModel | undefined;
  try {
    connection = await connect(parsed, name);
    return await use(connection);
  } catch (error) {
    // A refused open must not leave a socket behind: it would keep a CLI process alive.
    await connection?.close().catch(() => undefined);
    throw normalizeError(error, `rabbitmq:${parsed.queueName}`, classifyRabbitmqError, {
      secrets: parsed.secrets,
    });
  }
}

/**
 * The queue is there, with the arguments its URL implies: a typo must not make a queue, and a
 * URL whose maxReceives differs from the queue's delivery limit would declare a redrive it lacks.
 */
async function checkQueue(connection: ChannelModel, { queueName, maxReceives }: ParsedRabbitmqUrl) {
  if (!(await queueExists(connection, queueName))) {
    throw new QueueError('NOT_FOUND', `rabbitmq: no queue ${queueName}; create it first`);
  }
  await withChannel(connection, (channel) =>
    channel.assertQueue(queueName, mainQueueOptions(queueName, maxReceives)),
  ).catch((error: { code?: unknown; message?: unknown }) => {
    if (error?.code !== 406) throw error;
    throw new QueueError(
      'INVALID_ARGUMENT',
      `rabbitmq: queue ${queueName} was declared otherwise than its URL says (is maxReceives= its redrive?): ${String(error.message)}`,
      { details: { field: 'maxReceives' } },
    );
  });
}

const sameBroker = (a: ParsedRabbitmqUrl, b: ParsedRabbitmqUrl) =>
  a.host === b.host && a.port === b.port && a.vhost === b.vhost;

/** `rabbitmq://host:port/orders?vhost=/&user=svc&passwordEnv=RABBITMQ_PASSWORD`: a quorum queue in RabbitMQ. */
export const rabbitmqAdapter: port.AdapterDefinition = defineAdapter({
  scheme: 'rabbitmq',
  packageName: '@queueport/rabbitmq',
  // Leases run on this process's timers and delays on the broker's TTLs: no virtual clock moves either.
  virtualClock: false,
  peers: ['amqplib'],
  urls: rabbitmqUrls,
  endpoint: (url) => ({
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(url.port || 5672),
  }),
  async open(url, context) {
    const parsed = parse(url, context);
    requireQueueName('rabbitmq', parsed.queueName, 'rabbitmq://127.0.0.1:5672/orders');
    const name = `queueport-rabbitmq:${randomUUID().slice(0, 12)}`;
    await withConnection(parsed, `${name}:open`, async (connection) => {
      await checkQueue(connection, parsed);
      await connection.close();
    });
    const links = linkSource(parsed, name);
    return new RabbitmqDriver({
      ...{ queueName: parsed.queueName, maxReceives: parsed.maxReceives, timeoutMs: parsed.timeoutMs },
      ...{ connectionName: name, link: () => links.link(), closeLink: () => links.close() },
    });
  },
  async admin(url, context) {
    const provider = parse(url, context);
    const rules = {
      scheme: 'rabbitmq',
      provider,
      sameProvider: sameBroker,
      providerNoun: 'broker and vhost',
    };
    const locate = queueLocator({ ...rules, parse: (queue) => parse(queue, context) });
    const name = `queueport-rabbitmq-admin:${randomUUID().slice(0, 12)}`;
    return withConnection(provider, name, async (connection) => {
      const admin = rabbitmqAdmin({
        ...{ connection, locate: (queue) => locate(queue).queueName },
        urlOf: (queueName, maxReceives) => {
          const queueUrl = new URL(rabbitmqUrls.queueUrl(url, queueName));
          queueUrl.searchParams.set('maxReceives', String(maxReceives));
          return queueUrl.href;
        },
      });
      return guardedAdmin(admin, 'rabbitmq admin', classifyRabbitmqError, { secrets: provider.secrets });
    });
  },
});
