import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { track } from './cleanup';
import { messageOf } from './errors';
import { findExecutable, isExecutable, postgresBinDirs } from './executables';
import { LOCALHOST, onFreePort } from './ports';
import type { Ensured, Log } from './types';

type Argv = [command: string, ...args: string[]];

interface Tools {
  initdb: string;
  pgCtl: string;
  createdb: string;
}

function findTools(): Tools | undefined {
  const onPath = findExecutable('initdb');
  const dirs = [...(onPath ? [path.dirname(realpathSync(onPath))] : []), ...postgresBinDirs()];
  for (const dir of dirs) {
    const tools = {
      initdb: path.join(dir, 'initdb'),
      pgCtl: path.join(dir, 'pg_ctl'),
      createdb: path.join(dir, 'createdb'),
    };
    if (Object.values(tools).every(isExecutable)) return tools;
  }
  return undefined;
}

interface ClusterOwner {
  /** Wraps a command so that it runs as the cluster's OS user. */
  as(argv: Argv): Argv;
  ids?: { uid: number; gid: number };
}

/** PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user. */
function clusterOwner(): ClusterOwner {
  if (process.getuid?.() !== 0) return { as: (argv) => argv };
  const runuser = findExecutable('runuser', ['/usr/sbin', '/sbin']);
  let ids: { uid: number; gid: number };
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    ids = { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root, and there is no `postgres` OS user to own a PostgreSQL cluster');
  }
  if (!runuser) throw new Error('running as root, and runuser is missing to start PostgreSQL as `postgres`');
  return { as: (argv) => [runuser, '-u', 'postgres', '--', ...argv], ids };
}

function run(argv: Argv, cwd: string): Promise<void> {
  const [command, ...args] = argv;
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const output = `${stdout}${stderr}`.trim().split('\n').slice(-15).join('\n');
      reject(
        new Error(
          `${path.basename(command)} ${args.join(' ')} failed: ${error.message.split('\n')[0]}\n${output}`,
        ),
      );
    });
  });
}

function tailOf(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

export interface ClusterOptions {
  /**
   * Commits on disk before they are acknowledged, as in production, for a cluster that is crashed
   * on purpose (the chaos campaign). Default off: a test run's cluster needs no durability.
   */
  durable?: boolean;
}

/** A cluster of our own, which its owner may crash and start again. */
export interface PostgresCluster extends Ensured {
  /** `pg_ctl stop -m immediate`: no checkpoint, crash recovery from the WAL on the next start. */
  crash(): Promise<void>;
  /** On the same port and data directory. */
  start(): Promise<void>;
}

/**
 * Creates a throwaway cluster in a temp dir (trust auth, durability off unless asked for: it only
 * lives for one run), starts it on a free port, and creates database `test`. Stopping it deletes it.
 */
export async function startPostgresCluster(log: Log, options: ClusterOptions = {}): Promise<PostgresCluster> {
  const tools = findTools();
  if (!tools)
    throw new Error(
      'PostgreSQL server tools (initdb, pg_ctl) are not installed (apt-get install -y postgresql)',
    );
  const owner = clusterOwner();
  // The postgres user must be able to reach the dir; root's TMPDIR may be private.
  const dir = mkdtempSync(path.join(owner.ids ? '/tmp' : tmpdir(), 'queueport-pg-'));
  if (owner.ids) chownSync(dir, owner.ids.uid, owner.ids.gid);
  const data = path.join(dir, 'data');
  const pgCtl = (...args: string[]) => owner.as([tools.pgCtl, '-D', data, ...args]);
  const running = () => existsSync(path.join(data, 'postmaster.pid'));
  const remove = () => rmSync(dir, { recursive: true, force: true });

  const stop = track({
    async stop() {
      if (running()) await run(pgCtl('-m', 'fast', '-w', 'stop'), dir).catch(() => {});
      remove();
    },
    stopNow() {
      const [command, ...args] = pgCtl('-m', 'immediate', '-w', 'stop');
      if (running()) spawnSync(command, args, { cwd: dir, stdio: 'ignore', timeout: 10_000 });
      remove();
    },
  });

  try {
    log(`creating a throwaway PostgreSQL cluster in ${dir}`);
    const initdb: Argv = [tools.initdb, '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8'];
    // No locale: the host's may not exist for the postgres user. No sync: the cluster is disposable.
    initdb.push('--no-locale', '--no-sync');
    await run(owner.as(initdb), dir);
    const port = await onFreePort(async (port) => {
      // Later settings win, so a retry on another port simply appends again.
      const settings = [
        `port = ${port}`,
        `listen_addresses = '${LOCALHOST}'`,
        `unix_socket_directories = '${dir}'`,
        ...(options.durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
      ];
      appendFileSync(path.join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
      log(`starting PostgreSQL on ${LOCALHOST}:${port}`);
      const logFile = path.join(dir, `server-${port}.log`);
      await run(pgCtl('-l', logFile, '-w', '-t', '30', 'start'), dir).catch((error: unknown) => {
        throw new Error(`${messageOf(error)}\n--- server log ---\n${tailOf(logFile)}`);
      });
      return port;
    });
    await run([tools.createdb, '-h', LOCALHOST, '-p', String(port), '-U', 'postgres', 'test'], dir);
    const url = `postgres://postgres@${LOCALHOST}:${port}/test`;
    const logFile = path.join(dir, `server-${port}.log`);
    return {
      url,
      how: 'started temp cluster',
      notes: [`started a PostgreSQL cluster in ${dir}`],
      stop,
      crash: () => run(pgCtl('-m', 'immediate', '-w', 'stop'), dir),
      start: () =>
        run(pgCtl('-l', logFile, '-w', '-t', '60', 'start'), dir).catch((error: unknown) => {
          throw new Error(`${messageOf(error)}\n--- server log ---\n${tailOf(logFile)}`);
        }),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
