import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFailure, startProcess } from './child';
import { track } from './cleanup';
import { findExecutable } from './executables';
import { LOCALHOST, onFreePort, waitUntil } from './ports';
import { redisPing } from './redis';

/**
 * A redis-server of a test's (or the chaos campaign's) own, which it may stop, crash and start
 * again without harming others. Every write is on disk before Redis answers it (AOF, fsync
 * always), so what a client saw acknowledged survives a crash as it survives a restart.
 */
export interface PrivateRedis {
  readonly port: number;
  /** SIGTERM: Redis shuts down as it would in production, its append-only file synced. */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown, Redis replays its append-only file when it starts again. */
  crash(): Promise<void>;
  /** On the same port and directory, so clients find it where it was and it has its data back. */
  start(): Promise<void>;
  /** Stops it and deletes its directory. */
  dispose(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = findExecutable('redis-server', ['/usr/sbin', '/usr/local/sbin']);
  if (!binary) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const dir = await mkdtemp(path.join(tmpdir(), 'queueport-redis-restart-'));
  // Every write on disk before Redis answers it: what was acknowledged survives the restart.
  const args = (port: number) => [
    ...['--port', String(port), '--bind', LOCALHOST, '--daemonize', 'no', '--dir', dir],
    ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
  ];
  const launch = async (port: number) => {
    const proc = startProcess('redis-server', binary, args(port));
    const stop = track(proc);
    crashRunning = async () => {
      await proc.kill();
      await stop();
    };
    try {
      await waitUntil(
        'redis-server did not come up',
        () => redisPing(`redis://${LOCALHOST}:${port}`, 500).then(() => true),
        {
          timeoutMs: 15_000,
          giveUp: proc.exitReason,
        },
      );
    } catch (error) {
      await stop();
      throw startFailure(proc, error);
    }
    return stop;
  };
  let port = 0;
  let crashRunning: (() => Promise<void>) | undefined;
  let stopRunning: (() => Promise<void>) | undefined;
  try {
    stopRunning = await onFreePort(async (free) => {
      const stop = await launch(free);
      port = free;
      return stop;
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    const running = stopRunning;
    stopRunning = undefined;
    await running?.();
  };
  return {
    port,
    stop,
    async crash() {
      const crash = crashRunning;
      if (!stopRunning || !crash) throw new Error('the private redis-server is not running');
      stopRunning = undefined;
      crashRunning = undefined;
      await crash();
    },
    async start() {
      if (stopRunning) throw new Error('the private redis-server is already running');
      stopRunning = await launch(port);
    },
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
