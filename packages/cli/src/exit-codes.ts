/** What a pipeline reads: a failed check is not a mistyped command. */
export const EXIT = {
  /** Every check passed. */
  ok: 0,
  /** The command ran, and a check failed: the exit path is broken. */
  failed: 1,
  /** The command could not run as asked: a usage or configuration error (nothing was checked). */
  usage: 2,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
