import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { withDeadline } from './deadline';
import { ensureLocalService } from './ensure-local-service';
import { messageOf } from './errors';
import { findExecutable } from './executables';
import { LOCALHOST } from './ports';
import { startServer } from './start-server';
import type { Ensured, Log } from './types';

/** ioredis words some failures for its own bug reports; these say what they mean for a probe. */
function explain(message: string): string {
  if (message.startsWith('Protocol error'))
    return `not Redis: ${message.replace(/ Please report this\.$/, '')}`;
  if (message === 'Connection is closed.') return 'not Redis: it closed the connection without answering';
  return message;
}

/** A client for one probe: a failure is final, with no reconnecting and no queueing. */
function probeClient(url: string, timeoutMs: number): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    // disconnect() otherwise waits up to 2 s for a server that ignores our FIN before letting go.
    disconnectTimeout: 100,
  });
}

/**
 * Sends a real PING (ioredis sends AUTH first when the URL carries credentials) and insists on
 * PONG: an open port alone could be anything, and a Redis that demands a password we lack is of
 * no use.
 */
export async function redisPing(url: string, timeoutMs = 2000): Promise<void> {
  let client: Redis | undefined;
  // The promise only says "Connection is closed."; the error event carries the reason.
  let reason: Error | undefined;
  let answer: string;
  try {
    const redis = probeClient(url, timeoutMs);
    client = redis;
    redis.on('error', (error: Error) => {
      reason ??= error;
    });
    const ping = async () => {
      await redis.connect();
      return redis.ping();
    };
    answer = await withDeadline('Redis', timeoutMs, ping(), () => redis.disconnect());
  } catch (error) {
    // A fresh error: ioredis's and URL's may carry the password (AUTH's arguments, the input).
    throw new Error(explain(messageOf(reason ?? error)));
  } finally {
    // Once ioredis gave up by itself the socket is gone, and a second disconnect waits for nothing.
    if (client && client.status !== 'end') client.disconnect();
  }
  if (answer !== 'PONG') throw new Error(`not Redis: PING answered ${JSON.stringify(answer)}`);
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
