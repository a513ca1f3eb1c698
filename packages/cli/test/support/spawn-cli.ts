import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const bin = path.join(repoRoot, 'packages/cli/src/bin.ts');
/** The bin with a bullmq:// adapter whose open never answers (test/fixtures/hanging-open-cli.ts). */
export const HANGING_OPEN_CLI = path.join(repoRoot, 'packages/cli/test/fixtures/hanging-open-cli.ts');
// Resolved here: `--import tsx` resolves from the child's working directory, a temp folder.
const tsx = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('tsx')).href;

export interface CliChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit status (or the signal's name), with how long the process ran. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** The `queueport` bin as a real process, from its sources, as a person or a CI step runs it. */
export function spawnCli(
  argv: readonly string[],
  options: { cwd: string; env?: Record<string, string>; entry?: string },
): CliChild {
  const started = performance.now();
  const entry = options.entry ?? bin;
  const child = spawn(process.execPath, ['--conditions=@queueport/source', '--import', tsx, entry, ...argv], {
    cwd: options.cwd,
    // No QUEUEPORT_* or AWS_* of the test process leaks in: the child sees what the test gives it.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>(
    (resolve) => {
      child.once('close', (code, signal) => resolve({ code, signal, ms: performance.now() - started }));
    },
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** A loopback port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
