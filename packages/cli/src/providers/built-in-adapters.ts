import { randomBytes } from 'node:crypto';

/**
 * The one place the CLI names providers: the adapter packages it loads by URL scheme without a
 * configuration naming them, and the ones the embedded defaults run in this process. Everything
 * else (URL rules, the variables a URL reads, the drill's preflight, the secret patterns) comes
 * from each package's own AdapterDefinition; the peers here only name what to install when the
 * package itself is missing.
 */
export interface BuiltInAdapter {
  scheme: string;
  packageName: string;
  /**
   * Imported only when a provider uses the scheme, so a package's peers are needed only by those
   * who configure it. A package whose peers are optional exports its definition alone
   * (`/adapter`), so a missing peer is read from the definition and named in the install line.
   */
  load(): Promise<unknown>;
  /**
   * What `npm i` needs beside the package when the package itself is missing (its definition,
   * which names them, cannot be read then). The package's own `peers` win once it loads.
   */
  peers?: readonly string[];
  /**
   * Starts an in-process provider for the embedded defaults (no configuration file): its URL, the
   * variables it names with the values generated for them, and how to stop it.
   */
  embedded?(queue: string): Promise<EmbeddedProvider>;
}

export interface EmbeddedProvider {
  url: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Where the embedded Infrai simulator's generated key is passed on. */
const EMBEDDED_KEY_ENV = 'QUEUEPORT_EMBEDDED_INFRAI_API_KEY';

/** The embedded Infrai queue dead-letters after this many deliveries, so `dlq` has something to show. */
const EMBEDDED_REDRIVE_AFTER = 5;

export const BUILT_IN_ADAPTERS: readonly BuiltInAdapter[] = [
  {
    scheme: 'memory',
    packageName: '@queueport/memory',
    load: () => import('@queueport/memory'),
    async embedded(queue) {
      const { memoryAdapter } = await import('@queueport/memory');
      // memory:// queues live per process: the next load (a test, a second command) starts empty.
      const url = `memory://${queue}`;
      return {
        url,
        env: {},
        close: async () => {
          const admin = await memoryAdapter.admin!(new URL('memory://'), {});
          await admin.deleteQueue(url).catch(() => undefined);
        },
      };
    },
  },
  {
    scheme: 'infrai',
    packageName: '@queueport/infrai',
    load: () => import('@queueport/infrai'),
    async embedded(queue) {
      const [{ startInfraiSimulator }, { createInfraiAdapter }] = await Promise.all([
        import('@queueport/infrai/testing'),
        import('@queueport/infrai'),
      ]);
      const apiKey = `ifr_embedded_${randomBytes(16).toString('hex')}`;
      const simulator = await startInfraiSimulator({ apiKeys: [apiKey] });
      try {
        const provider = `infrai://${new URL(simulator.url).host}?tls=false&keyEnv=${EMBEDDED_KEY_ENV}`;
        const admin = await createInfraiAdapter({ apiKey }).admin!(new URL(provider), {});
        const url = await admin
          .createQueue({ name: queue, redriveAfterReceives: EMBEDDED_REDRIVE_AFTER })
          .finally(() => admin.close());
        return { url, env: { [EMBEDDED_KEY_ENV]: apiKey }, close: () => simulator.close() };
      } catch (error) {
        await simulator.close().catch(() => undefined);
        throw error;
      }
    },
  },
  {
    scheme: 'bullmq',
    packageName: '@queueport/bullmq',
    peers: ['bullmq', 'ioredis'],
    load: () => import('@queueport/bullmq/adapter'),
  },
  {
    scheme: 'sqs',
    packageName: '@queueport/sqs',
    peers: ['@aws-sdk/client-sqs'],
    load: () => import('@queueport/sqs/adapter'),
  },
  {
    scheme: 'pgqueue',
    packageName: '@queueport/postgres',
    // The package loads pg only when a queue is opened: its definition reads without it.
    peers: ['pg'],
    load: () => import('@queueport/postgres'),
  },
  {
    scheme: 'rabbitmq',
    packageName: '@queueport/rabbitmq',
    peers: ['amqplib'],
    load: () => import('@queueport/rabbitmq'),
  },
];
