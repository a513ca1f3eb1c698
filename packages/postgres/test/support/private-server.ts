import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { track } from '../../../../scripts/test-services/cleanup';
import { findExecutable, isExecutable, postgresBinDirs } from '../../../../scripts/test-services/executables';
import { LOCALHOST, onFreePort } from '../../../../scripts/test-services/ports';

/**
 * A PostgreSQL cluster of one test file's own, which it may stop, crash and start again: the
 * shared test server (127.0.0.1:5432) serves other files in parallel and must never go down.
 * The process runs as root and PostgreSQL refuses root, so initdb and pg_ctl run as the
 * `postgres` OS user through runuser, in a temp dir it owns, with trust auth, on a free port of
 * 127.0.0.1 and its unix socket inside that dir.
 */
export interface PrivatePostgres {
  readonly host: string;
  readonly port: number;
  /** For the test's own looks at the server (pg): `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /**
   * `immediate` (the default) is a crash: every backend is killed at once, no checkpoint, and the
   * next start runs crash recovery from the WAL. `fast` ends sessions and checkpoints first.
   */
  stop(mode?: StopMode): Promise<void>;
  /** On the same port and data directory: clients find it where it was, with its data. */
  start(): Promise<void>;
  /** stop, `downMs` with no server at all, start. */
  restart(options?: { mode?: StopMode; downMs?: number }): Promise<void>;
  /** The end of the server's log, for a failure message. */
  logTail(lines?: number): string;
  /** Stops it (immediate) and removes its temp dir; safe to call twice. */
  dispose(): Promise<void>;
}

export type StopMode = 'immediate' | 'fast';

interface Tools {
  initdb: string;
  pgCtl: string;
  runuser: string;
}

/** What the private cluster needs here, or why it cannot be had. */
function locate(): { tools: Tools; ids: { uid: number; gid: number } } | { missing: string } {
  if (process.getuid?.() !== 0) {
    return { missing: 'not running as root, so the cluster cannot be run as the postgres user' };
  }
  const dir = postgresBinDirs().find((bin) =>
    ['initdb', 'pg_ctl', 'postgres'].every((tool) => isExecutable(path.join(bin, tool))),
  );
  if (!dir) return { missing: 'no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin' };
  const runuser = findExecutable('runuser', ['/usr/sbin', '/sbin']);
  if (!runuser) return { missing: 'runuser is missing, so the cluster cannot be run as the postgres user' };
  let ids: { uid: number; gid: number };
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    ids = { uid: id('-u'), gid: id('-g') };
  } catch {
    return { missing: 'there is no postgres OS user to own the cluster' };
  }
  return { tools: { initdb: path.join(dir, 'initdb'), pgCtl: path.join(dir, 'pg_ctl'), runuser }, ids };
}

/** Why a private cluster cannot be started here, or undefined when it can (for `describe.skipIf`). */
export function privatePostgresUnavailable(): string | undefined {
  const found = locate();
  return 'missing' in found ? found.missing : undefined;
}

function run(argv: readonly string[], cwd: string, timeoutMs = 60_000): Promise<void> {
  const [command, ...args] = argv as [string, ...string[]];
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const output = `${stdout}${stderr}`.trim().split('\n').slice(-15).join('\n');
      const what = args.filter((arg) => !arg.startsWith('/')).join(' ');
      reject(new Error(`${what} failed: ${error.message.split('\n')[0]}\n${output}`));
    });
  });
}

function tailOf(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const found = locate();
  if ('missing' in found) throw new Error(`no private PostgreSQL: ${found.missing}`);
  const { tools, ids } = found;
  // In /tmp: root's TMPDIR may be private, and the postgres user must reach (and own) the dir.
  const dir = mkdtempSync(path.join('/tmp', 'queueport-pg-restart-'));
  chownSync(dir, ids.uid, ids.gid);
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const asPostgres = (argv: string[]) => [tools.runuser, '-u', 'postgres', '--', ...argv];
  const pgCtl = (...args: string[]) => asPostgres([tools.pgCtl, '-D', data, ...args]);
  const running = () => existsSync(path.join(data, 'postmaster.pid'));
  const withLog = (error: unknown) =>
    new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- server log ---\n${tailOf(logFile, 15)}`,
    );
  const start = () =>
    run(pgCtl('-l', logFile, '-w', '-t', '60', 'start'), dir).catch((e) => Promise.reject(withLog(e)));
  const stop = (mode: StopMode = 'immediate') => run(pgCtl('-m', mode, '-w', '-t', '60', 'stop'), dir);

  // Stopped and removed on dispose, and (synchronously) on process exit or a fatal signal.
  const disposeTracked = track({
    async stop() {
      if (running()) await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    stopNow() {
      const [command, ...args] = pgCtl('-m', 'immediate', '-w', 'stop') as [string, ...string[]];
      if (running()) spawnSync(command, args, { cwd: dir, stdio: 'ignore', timeout: 10_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  });

  try {
    // No locale: the host's may not exist for the postgres user. No sync: the cluster is disposable.
    await run(
      asPostgres([
        tools.initdb,
        '-D',
        data,
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ]),
      dir,
    );
    const port = await onFreePort(async (free) => {
      // Later settings win, so a retry on another port simply appends again. fsync off is safe
      // for a crash of the server process (the kernel still has what was written); commits stay
      // synchronous, so what a client saw committed survives `-m immediate` as in production.
      const settings = [
        `port = ${free}`,
        `listen_addresses = '${LOCALHOST}'`,
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'synchronous_commit = on',
      ];
      appendFileSync(path.join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
      await start();
      return free;
    });
    return {
      host: LOCALHOST,
      port,
      url: `postgres://postgres@${LOCALHOST}:${port}/postgres`,
      stop,
      start,
      async restart({ mode = 'immediate', downMs = 0 } = {}) {
        await stop(mode);
        if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
        await start();
      },
      logTail: (lines = 30) => tailOf(logFile, lines),
      dispose: disposeTracked,
    };
  } catch (error) {
    await disposeTracked();
    throw error;
  }
}
