import { EXIT, type ExitCode, Interrupted, type StopSignal } from './exit-codes';
import { type CliIo, processIo } from './io';
import { type MainOptions, main } from './main';
import { Redactor } from './report/redact-output';

/** After the report, how long the process may take to end by itself before it is ended. */
export const EXIT_GRACE_MS = 2_000;
/** After SIGINT or SIGTERM, how long cleanup (scratch queues, the partial report) may take. */
export const STOP_CLEANUP_MS = 30_000;

const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/**
 * `main` as the process: SIGINT and SIGTERM stop the run cleanly (the same signal again ends it
 * at once),
 * and the process always exits. Everything the command opened is closed within bounds by then;
 * a handle that still holds the process (a client library's reconnect loop, an open that never
 * answered) gets a grace period, then the process exits anyway, saying what was still open.
 */
export function runAsProcess(
  argv: readonly string[],
  io: CliIo = processIo(),
  options: Omit<MainOptions, 'signal'> = {},
): void {
  const controller = new AbortController();
  let code: ExitCode | undefined;
  const exit = (status: ExitCode, why?: string) => {
    if (why) io.stderr(`queueport: ${why}\n`);
    // The report may still sit in a pipe's buffer: exit once stdout has taken it.
    process.stdout.write('', () => process.exit(status));
  };
  let first: StopSignal | undefined;
  const onSignal = (signal: StopSignal) => {
    const status = signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
    if (code !== undefined || signal === first) {
      exit(code ?? status, `${signal} again: exiting now, without waiting for cleanup`);
      return;
    }
    if (first) {
      // A CI runner cancelling a job sends SIGINT, then SIGTERM seconds later, then SIGKILL:
      // the SIGTERM is no reason to drop the cleanup that is already under way.
      io.stderr(`queueport: ${signal}: still cleaning up after ${first}\n`);
      return;
    }
    first = signal;
    io.stderr(
      `\nqueueport: ${signal}: stopping; cleaning up and writing what ran (${signal} again to exit at once)\n`,
    );
    controller.abort(new Interrupted(signal));
    setTimeout(
      () =>
        exit(
          status,
          `cleanup did not finish within ${STOP_CLEANUP_MS} ms of ${signal}: exiting (${describeHandles()})`,
        ),
      STOP_CLEANUP_MS,
    ).unref();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);

  void main(argv, io, { ...options, signal: controller.signal }).then(
    (status) => {
      code = status;
      process.exitCode = status;
      // Unreferenced: when nothing else holds the process it ends now, on its own.
      setTimeout(
        () =>
          exit(status, `still running ${EXIT_GRACE_MS} ms after the report (${describeHandles()}): exiting`),
        EXIT_GRACE_MS,
      ).unref();
    },
    (error: unknown) => {
      // main reports every failure itself; this is a bug in the CLI, and still an exit.
      code = EXIT.failed;
      exit(
        EXIT.failed,
        new Redactor(io.env).text(
          `internal error: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    },
  );
}

/**
 * What keeps the event loop alive, by kind (`TCPSocketWrap × 2, Timeout`), for the exit message:
 * less the process's own stdio streams (unreferenced timers, the asking one included, are not listed).
 */
export function describeHandles(resources: readonly string[] = process.getActiveResourcesInfo()): string {
  const counts = new Map<string, number>();
  for (const kind of resources) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  let stdio = 3;
  for (const kind of ['TTYWrap', 'PipeWrap']) {
    const own = Math.min(stdio, counts.get(kind) ?? 0);
    stdio -= own;
    counts.set(kind, (counts.get(kind) ?? 0) - own);
  }
  const left = [...counts].filter(([, n]) => n > 0);
  if (left.length === 0) return 'nothing the process can name';
  return `open: ${left.map(([kind, n]) => (n === 1 ? kind : `${kind} × ${n}`)).join(', ')}`;
}
