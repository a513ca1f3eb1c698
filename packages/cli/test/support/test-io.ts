import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CliIo } from '../../src/io';

export interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

/** A process as main sees it, with everything it printed kept for the test. */
export function testIo(
  options: { env?: Record<string, string>; cwd?: string; isTTY?: boolean } = {},
): CapturedIo {
  let stdout = '';
  let stderr = '';
  return {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    isTTY: options.isTTY ?? false,
    env: options.env ?? {},
    cwd: options.cwd ?? tmpdir(),
    now: () => performance.now(),
    out: () => stdout,
    err: () => stderr,
  };
}

/** A fresh folder, with files written into it; `remove` after the test. */
export async function tempDir(files: Record<string, string | object> = {}): Promise<{
  dir: string;
  file(name: string): string;
  write(name: string, content: string | object): Promise<string>;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'queueport-cli-test-'));
  const write = async (name: string, content: string | object) => {
    const file = path.join(dir, name);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return file;
  };
  for (const [name, content] of Object.entries(files)) await write(name, content);
  return {
    dir,
    file: (name) => path.join(dir, name),
    write,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A memory:// queue name no other test in this process uses. */
export function uniqueQueue(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}
