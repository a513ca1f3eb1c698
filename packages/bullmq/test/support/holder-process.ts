import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withDeadline } from '../../../../scripts/test-services/deadline';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const fixture = path.join(here, '../fixtures/hold-forever.ts');

export interface Held {
  eventId: string;
  receiveCount: number;
}

/** A worker process (fixtures/hold-forever.ts) that takes one job and hangs on it. */
export interface Holder {
  /** The job its handler holds; rejects when it exits first, or says nothing within `timeoutMs`. */
  held(timeoutMs: number): Promise<Held>;
  /** SIGKILL, so nothing is released or completed on the way out; resolves once it is gone. */
  kill(): Promise<void>;
}

export function spawnHolder(queueUrl: string, leaseSeconds: number): Holder {
  // Workspace sources, not dist/, exactly as the tests themselves resolve them.
  const child = spawn(
    process.execPath,
    ['--conditions=@queueport/source', '--import', 'tsx', fixture, queueUrl, String(leaseSeconds)],
    { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
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
  const firstLine = new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  return {
    async held(timeoutMs) {
      const early = exited.then((reason): never => {
        throw new Error(`exited (${reason}) before it held a job`);
      });
      try {
        const line = await withDeadline('no job held', timeoutMs, Promise.race([firstLine, early]), () => {});
        return JSON.parse(line) as Held;
      } catch (error) {
        throw new Error(`holder process: ${(error as Error).message}\n--- its stderr ---\n${stderr}`);
      }
    },
    async kill() {
      if (gone) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
