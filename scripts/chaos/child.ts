/** A campaign process: JSON lines on stdout, SIGKILL at will, gone with its parent. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CampaignChild {
  /** The first stdout line, parsed; rejects when the process exits first or is silent for `timeoutMs`. */
  ready<T>(timeoutMs: number): Promise<T>;
  kill(): Promise<void>;
  /** One line to its stdin (the Infrai simulator takes faults this way). */
  send(line: string): void;
  stderr(): string;
}

/** Runs `script` (a path from the repository's root) on the workspace sources, as the tests do. */
export function startChild(
  script: string,
  flags: Record<string, string | number>,
  env: NodeJS.ProcessEnv,
): CampaignChild {
  const args = Object.entries(flags).flatMap(([name, value]) => [`--${name}`, String(value)]);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=@queueport/source', '--import', 'tsx', path.join(root, script), ...args],
    // stdin stays open: the child exits when it ends, so an orphan goes with its parent.
    { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit ${code}`));
  });
  const first = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  return {
    async ready<T>(timeoutMs: number): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${script}: no first line within ${timeoutMs} ms\n${stderr}`)),
          timeoutMs,
        );
      });
      const early = exited.then((why): never => {
        throw new Error(`${script} ${why} before its first line\n${stderr}`);
      });
      try {
        return JSON.parse(await Promise.race([first, early, timeout])) as T;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      if (gone) return;
      child.kill('SIGKILL');
      await exited;
    },
    send(line) {
      if (!gone) child.stdin?.write(`${line}\n`);
    },
    stderr: () => stderr,
  };
}
