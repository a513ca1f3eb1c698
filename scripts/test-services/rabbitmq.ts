import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import { withDeadline } from './deadline';
import { ensureLocalService } from './ensure-local-service';
import { messageOf } from './errors';
import { isExecutable } from './executables';
import { freePort, LOCALHOST } from './ports';
import { startServer } from './start-server';
import type { Ensured, Log } from './types';

/**
 * Logs in and opens a channel, the way the tests will: an open port alone could be anything, and
 * a broker that refuses the URL's user (guest is admitted from loopback only) is of no use.
 */
export async function rabbitmqUsable(url: string, timeoutMs = 3000): Promise<void> {
  let connection: amqp.ChannelModel | undefined;
  try {
    const check = async () => {
      connection = await amqp.connect(url, { timeout: timeoutMs });
      // A socket error after connect() settled would otherwise be thrown as an unhandled event.
      connection.on('error', () => {});
      await (await connection.createChannel()).close();
    };
    await withDeadline('RabbitMQ', timeoutMs, check(), () => void connection?.close().catch(() => {}));
  } catch (error) {
    // A fresh error: amqplib's may quote the URL, password included.
    throw new Error(`could not open a channel on RabbitMQ: ${messageOf(error).replace(url, '<url>')}`);
  } finally {
    await connection?.close().catch(() => {});
  }
}

/**
 * The Debian wrapper in /usr/sbin switches to the rabbitmq user through su, which starts a
 * session of its own that our process-group stop would not reach; the script under
 * /usr/lib/rabbitmq runs the node in our group, so stopping the group stops the broker.
 */
const NODE_SCRIPTS = ['/usr/lib/rabbitmq/bin/rabbitmq-server', '/usr/local/lib/rabbitmq/bin/rabbitmq-server'];

async function startRabbitmq(script: string, log: Log): Promise<Ensured> {
  const home = mkdtempSync(path.join(tmpdir(), 'queueport-rabbitmq-'));
  // No plugins: the management plugin would take the running broker's 15672.
  writeFileSync(path.join(home, 'enabled_plugins'), '[].\n');
  const distributionPort = await freePort();
  const started = await startServer({
    name: 'rabbitmq-server',
    binary: script,
    url: (port) => `amqp://guest:guest@${LOCALHOST}:${port}`,
    args: () => [],
    env: (port: number) => ({
      ...process.env,
      RABBITMQ_NODENAME: `queueport-${port}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: LOCALHOST,
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distributionPort),
      RABBITMQ_MNESIA_BASE: path.join(home, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(home, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(home, 'enabled_plugins'),
      // The machine's config names the standard listener, which the running broker holds.
      RABBITMQ_CONFIG_FILE: path.join(home, 'none'),
    }),
    ready: (url) => rabbitmqUsable(url, 1000).then(() => true),
    timeoutMs: 60_000,
    intervalMs: 500,
    log,
  });
  return {
    ...started,
    async stop() {
      await started.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface RabbitmqOptions {
  /** QUEUEPORT_RABBITMQ_URL: use exactly this broker, never start one. */
  override?: string;
  /** Port of an already running RabbitMQ to try first; undefined skips the try. */
  probePort?: number;
  log: Log;
}

export function ensureRabbitmq(options: RabbitmqOptions): Promise<Ensured> {
  return ensureLocalService({
    label: 'RabbitMQ',
    envName: 'QUEUEPORT_RABBITMQ_URL',
    ...(options.override ? { override: options.override } : {}),
    // These machines run RabbitMQ with its default guest user, admitted from loopback.
    ...(options.probePort === undefined
      ? {}
      : { probeUrl: `amqp://guest:guest@${LOCALHOST}:${options.probePort}` }),
    usable: (url) => rabbitmqUsable(url),
    start: async () => {
      const script = NODE_SCRIPTS.find(isExecutable);
      if (!script) throw new Error('rabbitmq-server is not installed (apt-get install -y rabbitmq-server)');
      return startRabbitmq(script, options.log);
    },
  });
}
