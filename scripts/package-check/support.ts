import { type ChildProcess, spawn } from 'node:child_process';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** A check that did not hold: printed as is, without a stack. */
export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface StepTiming {
  title: string;
  ms: number;
}

/** Steps printed for people: a heading, indented detail lines, and how long each took. */
export class Progress {
  readonly timings: StepTiming[] = [];
  readonly #started = performance.now();

  async step<T>(title: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    console.log(`\n▸ ${title}`);
    try {
      const result = await run();
      const ms = performance.now() - started;
      this.timings.push({ title, ms });
      console.log(`  ✓ ${title} (${seconds(ms)})`);
      return result;
    } catch (error) {
      console.log(`  ✗ ${title} (${seconds(performance.now() - started)})`);
      throw error;
    }
  }

  detail(line: string): void {
    console.log(line.replace(/^/gm, '    '));
  }

  summary(): string {
    const width = Math.max(...this.timings.map((t) => t.title.length));
    const lines = this.timings.map((t) => `  ${t.title.padEnd(width)}  ${seconds(t.ms).padStart(7)}`);
    lines.push(`  ${'total'.padEnd(width)}  ${seconds(performance.now() - this.#started).padStart(7)}`);
    return lines.join('\n');
  }
}

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** The exit codes that count as the command working (for a command expected to refuse); [0] by default. */
  exitCodes?: readonly number[];
}

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

const running = new Set<ChildProcess>();

/** Kills whatever `run` has started and not yet seen exit (for a Ctrl-C). */
export function killRunning(): void {
  for (const child of running) child.kill('SIGKILL');
}

const tail = (text: string, lines = 40) => text.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * Runs a command to completion, output captured; an exit code not in `exitCodes`, a signal or the
 * timeout is a CheckFailed carrying the command and the tail of what it printed.
 */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const shown = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error) => {
      running.delete(child);
      clearTimeout(timer);
      reject(new CheckFailed(`could not run ${shown} (in ${options.cwd}): ${error.message}`));
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      if (code !== null && (options.exitCodes ?? [0]).includes(code))
        return resolve({ stdout, stderr, code });
      const why = timedOut
        ? `timed out after ${seconds(options.timeoutMs)}`
        : signal
          ? `was killed by ${signal}`
          : `exited with code ${code}`;
      const output = tail(`${stdout}\n${stderr}`);
      reject(new CheckFailed(`${shown} (in ${options.cwd}) ${why}${output ? `:\n${output}` : ''}`));
    });
  });
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Every file and directory under `root`, without following symbolic links. */
export async function* walk(root: string): AsyncGenerator<{ file: string; directory: boolean }> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const file = path.join(root, entry.name);
    const directory = entry.isDirectory();
    yield { file, directory };
    if (directory) yield* walk(file);
  }
}

/** The modification times of the files under `root` (or of `root` itself); none if it is missing. */
export async function mtimes(root: string): Promise<number[]> {
  const info = await lstat(root).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [info.mtimeMs];
  const times: number[] = [];
  for await (const { file, directory } of walk(root)) {
    if (!directory) times.push((await stat(file)).mtimeMs);
  }
  return times;
}
