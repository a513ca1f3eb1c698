import type { Queue } from '@queueport/core';
import type { AdapterDefinition, QueueAdmin } from '@queueport/core/driver';
import type { Ledger } from '@queueport/ledger';
import type { LoadedConfig } from './config/config-types';
import type { CliIo } from './io';
import type { CommandReport } from './report/report-types';

/** A provider of the configuration, opened through its adapter definition. */
export interface OpenedProvider {
  /** Its name in the configuration. */
  name: string;
  /** Its URL, for reports (redacted: query values that look like secrets are masked). */
  url: string;
  definition: AdapterDefinition;
  queue: Queue;
  /** The adapter's admin surface over the provider (null where the adapter has none). */
  admin: QueueAdmin | null;
  close(): Promise<void>;
}

/**
 * What every command gets: the process it runs in, the configuration (loaded once, from the
 * file or the embedded defaults), and openers for providers and the ledger. Commands never read
 * process.env or the file system themselves, so tests run them in-process.
 */
export interface CommandContext {
  io: CliIo;
  /** The configuration file given with --config, or the default search in io.cwd. */
  configPath: string | undefined;
  config(): Promise<LoadedConfig>;
  /** Opens a provider by its configured name; a UsageError naming the known ones otherwise. */
  openProvider(name: string): Promise<OpenedProvider>;
  /**
   * The adapter that serves a configured provider, loaded but not opened (for its preflight,
   * which runs whether or not the provider opens). Absent: only an opened provider's is known.
   */
  adapterFor?(name: string): Promise<AdapterDefinition>;
  openLedger(): Promise<Ledger>;
  /**
   * A line of progress for people (stderr; live on a terminal, plain lines otherwise; silent
   * with --json). `running`: work under way, shown with its elapsed time on a terminal.
   */
  progress(line: string, options?: { running?: boolean }): void;
  /**
   * Aborted when the run is to stop (SIGINT, SIGTERM): a command stops starting work, cleans up
   * what it made, and returns the report of what ran so far. Absent: never stopped.
   */
  signal?: AbortSignal;
}

/** One command: its name, its --help text, and how it runs (argv after the command's name). */
export interface Command {
  name: string;
  summary: string;
  help: string;
  run(argv: readonly string[], context: CommandContext): Promise<CommandReport>;
}
