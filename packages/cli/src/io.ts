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
  /**
   * Calls `before` as a process warning is about to be printed and `after` once it has been,
   * until the returned function is called: live progress makes way for it. Absent: no warnings.
   */
  watchWarnings?(hooks: { before(): void; after(): void }): () => void;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stdout.isTTY && process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
    now: () => performance.now(),
    watchWarnings(hooks) {
      // Node prints a warning from its own 'warning' listener; prepended, this one runs first,
      // and `after` once Node has printed it.
      const listener = () => {
        hooks.before();
        setImmediate(hooks.after);
      };
      process.prependListener('warning', listener);
      return () => {
        process.off('warning', listener);
      };
    },
  };
}
