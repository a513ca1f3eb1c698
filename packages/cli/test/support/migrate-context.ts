import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdapterDefinition, AdapterRegistry, Queue } from '@queueport/core';
import { createInfraiAdapter } from '@queueport/infrai';
import { type InfraiSimulator, startInfraiSimulator } from '@queueport/infrai/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { memoryAdapter } from '@queueport/memory';
import { createWebhookSender, type Destination, type WebhookSender } from '@queueport/webhook';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import type { CommandContext, OpenedProvider } from '../../src/command-context';
import type { LoadedConfig, QueueportConfig } from '../../src/config/config-types';
import { UsageError } from '../../src/errors';
import type { CliIo } from '../../src/io';

/**
 * A CommandContext of the tests' own, built from the public packages only: named providers,
 * a SQLite ledger in a temp folder, a reference receiver, and what was printed.
 */
export interface TestContext {
  context: CommandContext;
  loaded: LoadedConfig;
  receiver: ReferenceReceiver;
  /** Absent unless asked for. */
  simulator: InfraiSimulator | undefined;
  ledgerFile: string;
  folder: string;
  /** The providers' URLs by name. */
  urls: Record<string, string>;
  progress: string[];
  stderr: string[];
  /** The receiver as a destination, signed as the configuration says. */
  destination: Destination;
  /** A sender that may post to the loopback receiver; closed with the context. */
  sender(): WebhookSender;
  /** A ledger on the same file, for seeding and for looking. */
  openLedger(): Promise<Ledger>;
  /** A queue on a configured provider's queue, for seeding and for looking. */
  openQueue(name: string): Promise<Queue>;
  /** What a provider's queue holds now (waiting, delayed, leased). */
  depth(name: string): Promise<number | null>;
  close(): Promise<void>;
}

export interface TestContextOptions {
  /** Memory providers by name; each gets a queue of its own. Default `a` and `b`. */
  memory?: readonly string[];
  /** Also an Infrai simulator provider named `infrai`. */
  infrai?: boolean;
  receiverMode?: 'idempotent' | 'ignores-key';
  /** Sign with a secret the receiver checks, as the embedded defaults do. Default true. */
  signed?: boolean;
  /** Pass the receiver as `referenceReceiver`, so effects are counted there. Default true. */
  exposeReceiver?: boolean;
  /** Extra configuration (payloadLoader). */
  config?: Partial<QueueportConfig>;
  /** The configuration file the loader path is relative to; none (the defaults' case) by default. */
  file?: string;
}

const SECRET_ENV = 'TEST_RECEIVER_SECRET';
const SECRET = `whsec_${Buffer.from('queueport-test-receiver-secret-0123').toString('base64')}`;

export async function startTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const folder = await mkdtemp(join(tmpdir(), 'queueport-cli-test-'));
  const ledgerFile = join(folder, 'ledger.db');
  const signed = options.signed ?? true;
  const receiver = await startReferenceReceiver({
    mode: options.receiverMode ?? 'idempotent',
    ...(signed ? { secrets: [SECRET] } : {}),
  });
  const adapters: AdapterDefinition[] = [memoryAdapter];
  const urls: Record<string, string> = {};
  const tag = randomUUID().slice(0, 8);
  for (const name of options.memory ?? ['a', 'b']) urls[name] = `memory://cli-${name}-${tag}`;
  let simulator: InfraiSimulator | undefined;
  if (options.infrai) {
    simulator = await startInfraiSimulator();
    const infrai = createInfraiAdapter({ apiKey: simulator.apiKey });
    adapters.push(infrai);
    const admin = await infrai.admin!(new URL(`infrai://${new URL(simulator.url).host}?tls=false`), {});
    urls.infrai = await admin.createQueue({ name: `cli-${tag}` });
    await admin.close();
  }
  const registry = new AdapterRegistry(adapters);
  const env: Record<string, string> = signed ? { [SECRET_ENV]: SECRET } : {};
  const config: QueueportConfig = {
    providers: Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, { url }])),
    ledger: { sqlite: ledgerFile },
    receiver: { url: receiver.url, allowInsecure: true, ...(signed ? { secretEnv: SECRET_ENV } : {}) },
    ...options.config,
  };
  const loaded: LoadedConfig = {
    config,
    file: options.file,
    // The test's own adapters, as a program passes its own: their URL rules name what they read
    // (the Infrai one holds its key, so no INFRAI_API_KEY is needed).
    adapters,
    env,
    ...(options.exposeReceiver === false ? {} : { referenceReceiver: receiver }),
    close: async () => {},
  };
  const progress: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: () => {},
    stderr: (text) => stderr.push(text),
    isTTY: false,
    env,
    cwd: folder,
    now: () => performance.now(),
  };
  const opened = new Set<{ close(): Promise<void> }>();
  const queues: Queue[] = [];
  const destination: Destination = {
    id: 'receiver',
    url: receiver.url,
    ...(signed ? { secrets: [SECRET] } : {}),
  };

  const context: CommandContext = {
    io,
    configPath: options.file,
    config: async () => loaded,
    async openProvider(name) {
      const url = urls[name];
      if (!url)
        throw new UsageError(`no provider named "${name}"; configured: ${Object.keys(urls).join(', ')}`);
      const { definition } = registry.resolve(url);
      const queue = new Queue(await definition.open(new URL(url), { env }), { logger: quiet });
      const admin = definition.admin ? await definition.admin(new URL(providerUrlOf(url)), { env }) : null;
      const provider: OpenedProvider = {
        name,
        url,
        definition,
        queue,
        admin,
        close: async () => {
          await queue.close({ timeoutMs: 500 });
          await admin?.close();
        },
      };
      opened.add(provider);
      return provider;
    },
    async openLedger() {
      const ledger = await openSqliteLedger({ filename: ledgerFile });
      opened.add(ledger);
      return ledger;
    },
    progress: (line) => progress.push(line),
  };

  return {
    context,
    loaded,
    receiver,
    simulator,
    ledgerFile,
    folder,
    urls,
    progress,
    stderr,
    destination,
    sender() {
      const sender = createWebhookSender({
        ssrf: { allowHttp: true, allowLoopback: true },
        requestTimeoutMs: 5_000,
      });
      opened.add(sender);
      return sender;
    },
    async openLedger() {
      const ledger = await openSqliteLedger({ filename: ledgerFile });
      opened.add(ledger);
      return ledger;
    },
    async openQueue(name) {
      const url = urls[name]!;
      const queue = new Queue(await registry.resolve(url).definition.open(new URL(url), { env }), {
        logger: quiet,
      });
      queues.push(queue);
      return queue;
    },
    async depth(name) {
      const url = urls[name]!;
      const { definition } = registry.resolve(url);
      const admin = await definition.admin!(new URL(providerUrlOf(url)), { env });
      try {
        return (await admin.stats(url)).depth;
      } finally {
        await admin.close();
      }
    },
    async close() {
      await Promise.allSettled(queues.map((queue) => queue.close({ timeoutMs: 500 })));
      for (const resource of opened) await resource.close().catch(() => undefined);
      const memoryAdmin = await memoryAdapter.admin!(new URL('memory://'), {});
      for (const url of Object.values(urls)) {
        if (url.startsWith('memory:')) await memoryAdmin.deleteQueue(url).catch(() => undefined);
      }
      await receiver.close();
      await simulator?.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Problem events the tests provoke on purpose; a failing assertion says what matters. */
export const quiet = { warn: () => {} };

/** The provider's URL without its queue, as the admin surfaces open it. */
function providerUrlOf(queueUrl: string): string {
  const url = new URL(queueUrl);
  if (url.protocol === 'memory:') url.host = '';
  url.pathname = '';
  return url.href;
}
