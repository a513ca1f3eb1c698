import { tmpdir } from 'node:os';
import { ensureLocalService } from './ensure-local-service';
import { findExecutable } from './executables';
import { exchange, LOCALHOST } from './ports';
import { startServer } from './start-server';
import type { Ensured, Log } from './types';

function resp(...args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/**
 * Sends a real PING (after AUTH when the URL carries credentials) and insists on +PONG: an open
 * port alone could be anything, and a Redis that demands a password we lack is of no use.
 */
export async function redisPing(url: string, timeoutMs = 2000): Promise<void> {
  const parsed = new URL(url);
  const commands: string[] = [];
  if (parsed.password) {
    const password = decodeURIComponent(parsed.password);
    const user = decodeURIComponent(parsed.username);
    commands.push(user && user !== 'default' ? resp('AUTH', user, password) : resp('AUTH', password));
  }
  commands.push(resp('PING'));
  const answer = await exchange({
    host: parsed.hostname || LOCALHOST,
    port: Number(parsed.port || 6379),
    tls: parsed.protocol === 'rediss:',
    send: commands.join(''),
    complete: (received) => received.toString('latin1').split('\r\n').length > commands.length,
    timeoutMs,
  });
  const replies = answer.toString('utf8').split('\r\n').slice(0, commands.length);
  const refused = replies.find((reply) => reply.startsWith('-'));
  if (refused) throw new Error(`Redis answered ${refused.slice(1)}`);
  if (replies.at(-1) !== '+PONG')
    throw new Error(`not Redis: PING answered ${JSON.stringify(replies.at(-1))}`);
}

function startRedis(binary: string, log: Log): Promise<Ensured> {
  return startServer({
    name: 'redis-server',
    binary,
    url: (port) => `redis://${LOCALHOST}:${port}`,
    args: (port) => [
      ...['--port', String(port), '--bind', LOCALHOST, '--daemonize', 'no'],
      // Tests must never leave data behind or read a previous run's.
      ...['--save', '', '--appendonly', 'no', '--dir', tmpdir()],
    ],
    ready: (url) => redisPing(url, 500).then(() => true),
    timeoutMs: 15_000,
    log,
  });
}

export interface RedisOptions {
  /** QUEUEPORT_REDIS_URL: use exactly this server, never start one. */
  override?: string;
  /** Port of an already running Redis to try first; undefined skips the try. */
  probePort?: number;
  log: Log;
}

export function ensureRedis(options: RedisOptions): Promise<Ensured> {
  return ensureLocalService({
    label: 'Redis',
    envName: 'QUEUEPORT_REDIS_URL',
    ...(options.override ? { override: options.override } : {}),
    ...(options.probePort === undefined ? {} : { probeUrl: `redis://${LOCALHOST}:${options.probePort}` }),
    usable: (url) => redisPing(url),
    start: async () => {
      const binary = findExecutable('redis-server', ['/usr/sbin', '/usr/local/sbin']);
      if (!binary) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
      return startRedis(binary, options.log);
    },
  });
}
