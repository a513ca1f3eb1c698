import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withDeadline } from '../../../../scripts/test-services/deadline';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const script = path.join(here, 'delivery-worker-child.ts');

/** A delivery-worker-child.ts process; it speaks one JSON object per stdout line. */
export interface WorkerProcess {
  /**
   * Its next stdout line, parsed; rejects when it exits first or says nothing within
   * `timeoutMs`, with its stderr in the message.
   */
  nextLine<T>(what: string, timeoutMs: number): Promise<T>;
  /** Why it is gone, while it is; undefined while it runs. */
  gone(): string | undefined;
  /** SIGKILL, so nothing is settled on the way out; resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * Runs the child on the workspace sources (not dist/), as the tests resolve them, with
 * `flags` as `--name value` pairs and `env` added to this process's environment.
 */
export function spawnWorker(
  flags: Record<string, string | number>,
  env: Record<string, string>,
): WorkerProcess {
  const args = Object.entries(flags).flatMap(([name, value]) => [`--${name}`, String(value)]);
  const child = spawn(
    process.execPath,
    ['--conditions=@queueport/source', '--import', 'tsx', script, ...args],
    {
      cwd: root,
      env: { ...process.env, ...env },
      // stdin stays open: the child exits when it ends, so an orphan goes with its parent.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  let gone: string | undefined;
  const exited = new Promise<string>((resolve) => {
    const end = (reason: string) => {
      gone ??= reason;
      resolve(gone);
    };
    child.once('error', (error) => end(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => end(signal ? `killed by ${signal}` : `exit ${code}`));
  });
  // Lines are queued as they come, so none is lost between two nextLine calls.
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    waiting?.();
  });
  const lineReady = () =>
    new Promise<void>((resolve) => {
      if (lines.length > 0) resolve();
      else waiting = resolve;
    });
  return {
    async nextLine<T>(what: string, timeoutMs: number): Promise<T> {
      const early = exited.then((reason): never => {
        throw new Error(`exited (${reason}) before ${what}`);
      });
      try {
        await withDeadline(what, timeoutMs, Promise.race([lineReady(), early]), () => {});
        return JSON.parse(lines.shift()!) as T;
      } catch (error) {
        throw new Error(`delivery worker child: ${(error as Error).message}\n--- its stderr ---\n${stderr}`);
      } finally {
        waiting = undefined;
      }
    },
    gone: () => (gone === undefined ? undefined : `${gone}\n--- its stderr ---\n${stderr}`),
    async kill() {
      if (gone) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
