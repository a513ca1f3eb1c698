import { tmpdir } from 'node:os';
import { startFailure, startProcess } from './child';
import { track } from './cleanup';
import { messageOf } from './errors';
import { findExecutable } from './executables';
import { exchange, LOCALHOST, onFreePort, waitUntil } from './ports';
import { redactUrl } from './redact';
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

async function startRedis(binary: string, log: Log): Promise<Ensured> {
  return onFreePort(async (port) => {
    const url = `redis://${LOCALHOST}:${port}`;
    log(`starting redis-server on ${LOCALHOST}:${port}`);
    const proc = startProcess('redis-server', binary, [
      ...['--port', String(port), '--bind', LOCALHOST, '--daemonize', 'no'],
      // Tests must never leave data behind or read a previous run's.
      ...['--save', '', '--appendonly', 'no', '--dir', tmpdir()],
    ]);
    const stop = track(proc);
    try {
      await waitUntil('redis-server did not come up', () => redisPing(url, 500).then(() => true), {
        timeoutMs: 15_000,
        giveUp: proc.exitReason,
      });
    } catch (error) {
      await stop();
      throw startFailure(proc, error);
    }
    return {
      url,
      how: 'started redis-server',
      notes: [`started redis-server on ${url}`],
      stop,
    };
  });
}

export interface RedisOptions {
  /** QUEUEPORT_REDIS_URL: use exactly this server, never start one. */
  override?: string;
  /** Port of an already running Redis to try first; undefined skips the try. */
  probePort?: number;
  log: Log;
}

export async function ensureRedis(options: RedisOptions): Promise<Ensured> {
  const nothingToStop = async () => {};
  if (options.override) {
    await redisPing(options.override).catch((error: unknown) => {
      throw new Error(
        `QUEUEPORT_REDIS_URL=${redactUrl(options.override ?? '')} is not usable: ${messageOf(error)}`,
      );
    });
    return {
      url: options.override,
      how: 'from QUEUEPORT_REDIS_URL',
      notes: [],
      stop: nothingToStop,
    };
  }
  const notes: string[] = [];
  if (options.probePort !== undefined) {
    const url = `redis://${LOCALHOST}:${options.probePort}`;
    try {
      await redisPing(url);
      return { url, how: 'running', notes, stop: nothingToStop };
    } catch (error) {
      notes.push(`no usable Redis at ${LOCALHOST}:${options.probePort}: ${messageOf(error)}`);
    }
  }
  const binary = findExecutable('redis-server', ['/usr/sbin', '/usr/local/sbin']);
  if (!binary) {
    throw new Error(
      `${[...notes, 'redis-server is not installed'].join('; ')} (apt-get install -y redis-server)`,
    );
  }
  try {
    const started = await startRedis(binary, options.log);
    return { ...started, notes: [...notes, ...started.notes] };
  } catch (error) {
    throw new Error([...notes, messageOf(error)].join('; '));
  }
}
