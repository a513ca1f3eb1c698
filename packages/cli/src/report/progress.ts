import type { CliIo } from '../io';

export interface Progress {
  /** One line of progress: replaces the last on a terminal, appended otherwise. */
  line(text: string): void;
  /** Takes a live line off the terminal before the report is printed. */
  clear(): void;
}

export interface ProgressOptions {
  /** --json: machines read stdout, and nobody watches stderr for progress. */
  silent: boolean;
  redact(text: string): string;
}

/** The widest live line: wider ones would wrap, and `\r` would then rewrite only the last row. */
const LIVE_COLUMNS = 100;

/** Progress on long work, for people, on stderr: live on a terminal, plain lines in a CI log. */
export function createProgress(io: CliIo, options: ProgressOptions): Progress {
  let live = false;
  return {
    line(text) {
      if (options.silent) return;
      const shown = options.redact(text).replace(/\s*\n\s*/g, ' ');
      if (!io.isTTY) {
        io.stderr(`${shown}\n`);
        return;
      }
      const clipped = shown.length > LIVE_COLUMNS ? `${shown.slice(0, LIVE_COLUMNS - 1)}…` : shown;
      io.stderr(`\r\x1b[2K${clipped}`);
      live = true;
    },
    clear() {
      if (!live) return;
      io.stderr('\r\x1b[2K');
      live = false;
    },
  };
}
