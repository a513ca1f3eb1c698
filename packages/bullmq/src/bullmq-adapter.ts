import {
  type AdapterDefinition,
  defineAdapter,
  guardedAdmin,
  importWithPeers,
  normalizeError,
  type OpenContext,
  QueueError,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import type { Redis } from 'ioredis';
import type { BullmqDriver } from './bullmq-driver';
import { bullmqUrls, type ParsedBullmqUrl, parseBullmqUrl, queueUrl } from './bullmq-url';
import { classifyBullmqError } from './classify-error';
import { redriveKey } from './queue-keys';

export interface BullmqAdapterOptions {
  /**
   * Your own ioredis connection, used for every URL instead of one opened from the URL's host
   * (the URL still names the queue and the options). Never closed by queueport.
   */
  connection?: Redis;
}

/**
 * `bullmq://host:port/orders?prefix=bull&dedupeWindowSeconds=300`, opened through the adapter
 * registry like any provider. `createBullmqAdapter({ connection })` uses your own connection.
 */
export function createBullmqAdapter(adapterOptions: BullmqAdapterOptions = {}): AdapterDefinition {
  const connect = async (
    parsed: ParsedBullmqUrl,
  ): Promise<{ connection: Redis; owns: boolean; ready(): Promise<void> }> => {
    if (adapterOptions.connection) {
      return { connection: adapterOptions.connection, owns: false, ready: () => Promise.resolve() };
    }
    const { connection, ready } = (await peerParts()).openRedis(parsed.redis, parsed.timeoutMs);
    return { connection, owns: true, ready };
  };
  const parse = (url: URL, context: OpenContext) => parseBullmqUrl(url, context.env ?? process.env);
  return defineAdapter({
    scheme: 'bullmq',
    packageName: '@queueport/bullmq',
    virtualClock: false,
    peers: BULLMQ_PEERS,
    urls: bullmqUrls,
    endpoint: (url) =>
      url.hostname
        ? { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) }
        : undefined,
    async open(url, context) {
      const parsed = parse(url, context);
      requireQueueName('bullmq', parsed.queueName, 'bullmq://127.0.0.1:6379/orders');
      const { BullmqDriver } = await peerParts();
      const { connection, owns, ready } = await connect(parsed);
      connection.on('error', () => {});
      const secrets = parsed.redis.password ? [parsed.redis.password] : [];
      let driver: BullmqDriver | undefined;
      try {
        await ready();
        const redriveAfterReceives = await storedRedrive(connection, parsed);
        driver = new BullmqDriver({
          ...parsed.options,
          ...(redriveAfterReceives === undefined ? {} : { redriveAfterReceives }),
          connection,
          queueName: parsed.queueName,
          ownsConnection: owns,
        });
        await driver.ensureExists();
        return driver;
      } catch (error) {
        // A refused open must not leave a socket behind: it would keep a CLI process alive.
        if (driver) await driver.close();
        else if (owns) connection.disconnect();
        // ioredis's own errors carry the command's arguments, AUTH's password among them.
        throw normalizeError(error, `bullmq:${parsed.queueName}`, classifyBullmqError, { secrets });
      }
    },
    async admin(url, context) {
      const provider = parse(url, context);
      const { bullmqAdmin } = await peerParts();
      const { connection, owns, ready } = await connect(provider);
      connection.on('error', () => {});
      const prefix = provider.options.prefix ?? 'bull';
      const locate = queueLocator({
        scheme: 'bullmq',
        parse: (queue) => parse(queue, context),
        provider,
        sameProvider: sameRedis,
        providerNoun: 'Redis',
      });
      return guardedAdmin(
        bullmqAdmin(
          connection,
          {
            prefix,
            ready,
            urlOf: (queueName) => queueUrl(url, queueName),
            locate(queue) {
              const parsed = locate(queue);
              return { queueName: parsed.queueName, prefix: parsed.options.prefix ?? 'bull' };
            },
          },
          owns,
        ),
        'bullmq admin',
        classifyBullmqError,
        { secrets: provider.redis.password ? [provider.redis.password] : [] },
      );
    },
  });
}

/** What a user installs beside @queueport/bullmq. */
const BULLMQ_PEERS = ['bullmq', 'ioredis'] as const;

/**
 * The parts that use BullMQ and ioredis, imported at the first open or admin: the definition
 * reads without them, and a missing one is a QueueError naming the install line.
 */
function peerParts() {
  return importWithPeers(
    { scheme: 'bullmq', packageName: '@queueport/bullmq', peers: BULLMQ_PEERS },
    () => import('./bullmq-peer-parts'),
  );
}

/** The redrive count the admin stored with the queue; Redis's answer is checked like any input. */
async function storedRedrive(connection: Redis, parsed: ParsedBullmqUrl): Promise<number | undefined> {
  const stored = await connection.get(redriveKey(parsed.options.prefix ?? 'bull', parsed.queueName));
  if (stored === null) return undefined;
  const count = /^[0-9]{1,9}$/.test(stored) ? Number(stored) : 0;
  if (count < 1) {
    throw new QueueError(
      'INTERNAL',
      `bullmq:${parsed.queueName}: the queue's stored redrive count is not a whole number from 1`,
    );
  }
  return count;
}

function sameRedis(a: ParsedBullmqUrl, b: ParsedBullmqUrl): boolean {
  return (
    a.redis.host === b.redis.host && a.redis.port === b.redis.port && (a.redis.db ?? 0) === (b.redis.db ?? 0)
  );
}

/** The adapter that opens a connection per URL. */
export const bullmqAdapter: AdapterDefinition = createBullmqAdapter();
