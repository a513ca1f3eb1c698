/** What a pipeline reads: a failed check is not a mistyped command, nor an interrupted run. */
export const EXIT = {
  /** Every check passed. */
  ok: 0,
  /** The command ran, and a check failed: the exit path is broken. */
  failed: 1,
  /** The command could not run as asked: a usage or configuration error (nothing was checked). */
  usage: 2,
  /** Stopped by SIGINT (Ctrl-C), after cleaning up and writing what ran: 128 + 2, as shells report it. */
  interrupted: 130,
  /** Stopped by SIGTERM (a CI job cancelled), after cleaning up and writing what ran: 128 + 15. */
  terminated: 143,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The signals the CLI stops on, cleanly; the exit code says which one it was. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The reason a run's AbortSignal carries when a person or a CI runner stopped it. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor(readonly signal: StopSignal) {
    super(`interrupted by ${signal}`);
  }
}

/** The exit code of a run stopped by `reason` (an Interrupted), or undefined when it was not stopped. */
export function exitCodeOfStop(reason: unknown): ExitCode | undefined {
  if (!(reason instanceof Interrupted)) return undefined;
  return reason.signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
}
