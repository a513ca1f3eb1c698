/**
 * The worker process of every adapter's crash test: it holds what it takes (hold-forever.ts)
 * until its parent SIGKILLs it, so nothing is released, acked or completed on the way out.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withDeadline } from '../test-services/deadline';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const fixture = path.join(here, 'hold-forever.ts');

export interface Held {
  eventId: string;
  receiveCount: number;
}

export interface Holder {
  /** Every message it has said it holds, in order, as the lines come. */
  readonly heldSoFar: readonly Held[];
  /** The first message it holds; rejects when it exits first, or says nothing within `timeoutMs`. */
  held(timeoutMs: number): Promise<Held>;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
}

export interface HolderOptions {
  /** The adapter's module (a path or a specifier the fixture can import) and the export that is its definition. */
  adapter: { module: string; exportName: string };
  queueUrl: string;
  leaseSeconds: number;
  /** How many it takes at once (the consumer's concurrency); 1 by default. */
  concurrency?: number;
}

export function spawnHolder({ adapter, queueUrl, leaseSeconds, concurrency = 1 }: HolderOptions): Holder {
  // Workspace sources, not dist/, exactly as the tests themselves resolve them.
  const args = [adapter.module, adapter.exportName, queueUrl, String(leaseSeconds), String(concurrency)];
  const child = spawn(
    process.execPath,
    ['--conditions=@queueport/source', '--import', 'tsx', fixture, ...args],
    {
      cwd: root,
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
  const heldSoFar: Held[] = [];
  const firstLine = new Promise<void>((resolve) =>
    createInterface({ input: child.stdout }).on('line', (line) => {
      heldSoFar.push(JSON.parse(line) as Held);
      resolve();
    }),
  );
  return {
    heldSoFar,
    async held(timeoutMs) {
      const early = exited.then((reason): never => {
        throw new Error(`exited (${reason}) before it held anything`);
      });
      try {
        await withDeadline('nothing held', timeoutMs, Promise.race([firstLine, early]), () => {});
        return heldSoFar[0]!;
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
