/**
 * What a command may touch of its process, passed in so tests run commands in-process and see
 * exactly what a person or a pipeline would.
 */
export interface CliIo {
  /** Machine output (--json) and reports go here. */
  stdout(text: string): void;
  /** Progress and diagnostics for people. */
  stderr(text: string): void;
  /** Whether stderr/stdout is a terminal: colour and live progress only then. */
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Milliseconds, for latencies; performance.now() by default. */
  now(): number;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stdout.isTTY && process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
    now: () => performance.now(),
  };
}
