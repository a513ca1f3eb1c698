import type { CliIo } from '../io';

export interface Progress {
  /**
   * One line of progress: replaces the last on a terminal, appended otherwise. A `running` line
   * names work under way: on a terminal it shows how long it has been running, every second.
   */
  line(text: string, options?: { running?: boolean }): void;
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
const TICK_MS = 1_000;

/**
 * Progress on long work, for people, on stderr: live on a terminal (the running step with its
 * elapsed time; a process warning printed on its own line above it), plain lines in a CI log.
 */
export function createProgress(io: CliIo, options: ProgressOptions): Progress {
  let live: { text: string; since: number | undefined } | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;

  const draw = () => {
    if (!live) return;
    const elapsed = live.since === undefined ? '' : ` (${Math.floor((io.now() - live.since) / TICK_MS)} s)`;
    const room = LIVE_COLUMNS - elapsed.length;
    const clipped = live.text.length > room ? `${live.text.slice(0, room - 1)}…` : live.text;
    io.stderr(`\r\x1b[2K${clipped}${elapsed}`);
  };
  const stopTicking = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };

  return {
    line(text, { running = false } = {}) {
      if (options.silent) return;
      const shown = options.redact(text).replace(/\s*\n\s*/g, ' ');
      if (!io.isTTY) {
        io.stderr(`${shown}${running ? ' …' : ''}\n`);
        return;
      }
      stopTicking();
      live = { text: shown, since: running ? io.now() : undefined };
      // A warning (the AWS SDK's, say) printed over the live line would be cut into it: the
      // line makes way, the warning gets its own lines, and the line comes back under it.
      unwatch ??= io.watchWarnings?.({
        before: () => {
          if (live) io.stderr('\r\x1b[2K');
        },
        after: draw,
      });
      draw();
      if (running) {
        ticker = setInterval(draw, TICK_MS);
        ticker.unref();
      }
    },
    clear() {
      stopTicking();
      unwatch?.();
      unwatch = undefined;
      if (!live) return;
      io.stderr('\r\x1b[2K');
      live = undefined;
    },
  };
}
