import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Driver } from '@queueport/core/driver';
import amqp from 'amqplib';
import { afterAll, inject } from 'vitest';
import { RabbitmqDriver } from '../../src';

const run = promisify(execFile);

/** The shared broker, as the root global setup found it (the one place its URL is read). */
export const brokerUrl = new URL(inject('queueportServices').rabbitmqUrl);

/** The variable the provider URLs name with passwordEnv=: the password never goes in a URL. */
const PASSWORD_ENV = 'QUEUEPORT_TEST_RABBITMQ_PASSWORD';
process.env[PASSWORD_ENV] = decodeURIComponent(brokerUrl.password || 'guest');

/** The provider URL of the shared broker; `options` are further URL options. */
export function providerUrl(options: Record<string, string> = {}): string {
  const url = new URL(`rabbitmq://${brokerUrl.hostname}:${brokerUrl.port || 5672}`);
  url.searchParams.set('user', decodeURIComponent(brokerUrl.username || 'guest'));
  url.searchParams.set('passwordEnv', PASSWORD_ENV);
  for (const [key, value] of Object.entries(options)) url.searchParams.set(key, value);
  return url.href;
}

/** A direct connection for the test's own looks at the broker. */
export async function withBroker<T>(use: (channel: amqp.Channel) => Promise<T>): Promise<T> {
  const connection = await amqp.connect(brokerUrl.href);
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    return await use(channel);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * Queue names unique to this file; every queue a test made under them (the queue, its dead
 * letters, its delay queues) is deleted after the file's last test.
 */
export function queuesPerFile(label: string) {
  const prefix = `qp-${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const made: string[] = [];
  afterAll(async () => {
    const names = new Set((await listQueues()).map((queue) => queue.name));
    await withBroker(async (channel) => {
      for (const name of names)
        if (made.some((queue) => name.startsWith(queue))) await channel.deleteQueue(name);
    });
  });
  let count = 0;
  return {
    next(): string {
      const name = `${prefix}-${++count}`;
      made.push(name);
      return name;
    },
  };
}

/** The broker's own view of its queues, through rabbitmqctl (the management plugin may be off). */
export async function listQueues(): Promise<Array<{ name: string; arguments: Record<string, unknown> }>> {
  const { stdout } = await run('rabbitmqctl', [
    'list_queues',
    '-q',
    'name',
    'arguments',
    '--formatter',
    'json',
  ]);
  // Each argument comes as [name, type, value].
  const rows = JSON.parse(stdout) as Array<{ name: string; arguments: Array<[string, string, unknown]> }>;
  return rows.map((row) => ({
    name: row.name,
    arguments: Object.fromEntries(row.arguments.map(([name, , value]) => [name, value])),
  }));
}

/** Closes, from the broker's side, every connection of one driver, as a restart or a network cut would. */
export async function closeConnections(driver: Driver): Promise<number> {
  if (!(driver instanceof RabbitmqDriver)) throw new Error('not a rabbitmq driver');
  // The table form: its pid column is what close_connection takes (the JSON form's is not).
  const { stdout } = await run('rabbitmqctl', [
    'list_connections',
    '-q',
    '--no-table-headers',
    'pid',
    'client_properties',
  ]);
  const ours = stdout
    .split('\n')
    .filter((line) => line.includes(driver.connectionName))
    .map((line) => ({ pid: line.split('\t')[0]! }));
  for (const row of ours) await run('rabbitmqctl', ['close_connection', row.pid, 'test: connection dropped']);
  return ours.length;
}
