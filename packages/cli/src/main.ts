import { mkdir, open, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AdapterDefinition } from '@queueport/core/driver';
import type { Command } from './command-context';
import { COMMANDS } from './commands/registry';
import { EMBEDDED_DEFAULTS_NOTE } from './config/embedded-defaults';
import { createCommandContext } from './context';
import { ConfigError, UsageError } from './errors';
import { EXIT, type ExitCode, exitCodeOfStop } from './exit-codes';
import { type GlobalFlags, parseGlobalFlags } from './global-flags';
import { TOP_USAGE, topLevelHelp } from './help';
import type { CliIo } from './io';
import { registerBuiltInSecretPatterns } from './providers/built-in-secret-patterns';
import { emitReport } from './report/emit-report';
import { Redactor } from './report/redact-output';
import { describeError } from './report/report-builder';
import type { CommandReport } from './report/report-types';
import { VERSION } from './version';

export interface MainOptions {
  /** Adapters besides (or instead of) the built-in ones, by scheme: for programs and tests. */
  adapters?: readonly AdapterDefinition[];
  /** The commands to dispatch to; every built-in one by default. */
  commands?: readonly Command[];
  /**
   * Aborted to stop the run, with an `Interrupted` reason (bin.ts does on SIGINT and SIGTERM):
   * the command cleans up and reports what ran, and main returns 130 or 143.
   */
  signal?: AbortSignal;
}

/**
 * The CLI: global flags, then the command by name, its report printed in the format asked for.
 * Exit 0 when every check passed, 1 when one failed (or the command broke down), 2 when the
 * command line or the configuration was wrong and nothing was checked, 130 / 143 when SIGINT /
 * SIGTERM stopped it (after the report of what ran).
 */
export async function main(argv: readonly string[], io: CliIo, options: MainOptions = {}): Promise<ExitCode> {
  const commands = options.commands ?? COMMANDS;
  // Before anything is read or printed: a provider's key is masked even where another is configured.
  await registerBuiltInSecretPatterns();
  const early = new Redactor(io.env);
  let flags: GlobalFlags;
  try {
    flags = parseGlobalFlags(argv, TOP_USAGE);
  } catch (error) {
    return refuse(io, early, error as UsageError, undefined, false);
  }
  if (flags.version) {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (!flags.command) {
    if (flags.help) {
      io.stdout(topLevelHelp(commands));
      return EXIT.ok;
    }
    io.stderr(topLevelHelp(commands));
    return EXIT.usage;
  }
  const command = commands.find((each) => each.name === flags.command);
  if (!command) {
    const error = new UsageError(
      `unknown command "${flags.command}"; commands: ${commands.map((each) => each.name).join(', ')}`,
    );
    return refuse(io, early, error, undefined, flags.json);
  }
  if (flags.commandHelp) {
    io.stdout(command.help);
    return EXIT.ok;
  }

  const context = createCommandContext(io, {
    configPath: flags.configPath,
    json: flags.json,
    ...(options.adapters ? { adapters: options.adapters } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    if (flags.junitPath) {
      // Checked before the run: a long drill must not end in "could not write the report".
      const problem = await unwritable(flags.junitPath, io.cwd);
      if (problem) {
        return refuse(
          io,
          context.redactor,
          new UsageError(`--junit ${flags.junitPath}: ${problem}`),
          command.name,
          flags.json,
        );
      }
    }
    let report: CommandReport;
    try {
      report = await command.run(flags.rest, context);
    } catch (error) {
      if (error instanceof UsageError || error instanceof ConfigError) {
        context.progressDisplay.clear();
        return refuse(io, context.redactor, error, command.name, flags.json);
      }
      report = brokeDown(command.name, error);
    }
    context.progressDisplay.clear();
    report = await withEmbeddedNote(report, context);
    try {
      await emitReport(report, io, {
        json: flags.json,
        junitPath: flags.junitPath,
        color: io.isTTY && !flags.noColor && !io.env.NO_COLOR,
        redactor: context.redactor,
      });
    } catch (error) {
      io.stderr(
        `${context.redactor.text(`queueport: could not write the JUnit report: ${describeError(error)}`)}\n`,
      );
      return EXIT.usage;
    }
    const stopped = options.signal?.aborted ? exitCodeOfStop(options.signal.reason) : undefined;
    return stopped ?? (report.ok ? EXIT.ok : EXIT.failed);
  } finally {
    await context.close();
    const left = context.stillOpen();
    if (left.length > 0) {
      io.stderr(`${context.redactor.text(`queueport: still open after the run: ${left.join('; ')}`)}\n`);
    }
  }
}

/** Nothing was checked: say why, and where the usage is. */
function refuse(
  io: CliIo,
  redactor: Redactor,
  error: UsageError | ConfigError,
  command: string | undefined,
  json: boolean,
): ExitCode {
  const message = redactor.text(error.message);
  const hint = command ? `queueport ${command} --help` : 'queueport --help';
  io.stderr(`queueport: ${message}\n(${hint} for usage)\n`);
  if (json) {
    const kind = error instanceof ConfigError ? 'config' : 'usage';
    const detail =
      error instanceof ConfigError
        ? { ...(error.file ? { file: error.file } : {}), ...(error.field ? { field: error.field } : {}) }
        : {};
    // Masked before encoding: a secret's JSON-escaped form need not match its plain one.
    io.stdout(
      `${redactor.json({ command: command ?? null, ok: false, error: { kind, message: error.message, ...detail } })}\n`,
    );
  }
  return EXIT.usage;
}

/** A command that threw something other than a usage or configuration error: a failed run, reported. */
function brokeDown(command: string, error: unknown): CommandReport {
  return {
    command,
    ok: false,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    checks: [
      {
        id: `${command}.error`,
        title: `queueport ${command} ran to the end`,
        status: 'failed',
        durationMs: 0,
        detail: describeError(error),
      },
    ],
  };
}

/** Every command says when it ran on the throwaway defaults, so a forgotten --config never passes for a real answer. */
async function withEmbeddedNote(
  report: CommandReport,
  context: { config(): Promise<{ file: string | undefined }> },
): Promise<CommandReport> {
  let file: string | undefined;
  try {
    file = (await context.config()).file;
  } catch {
    return report;
  }
  if (
    file !== undefined ||
    (report.notes ?? []).some((note) => note.startsWith('ran on the embedded defaults'))
  ) {
    return report;
  }
  return { ...report, notes: [...(report.notes ?? []), EMBEDDED_DEFAULTS_NOTE] };
}

/**
 * Why a JUnit report could not be written there, or undefined. Tried for real (missing folders
 * made one by one, the file opened for appending): permission checks say little to root, and
 * Node 20's recursive mkdir never returns on some paths (under /proc).
 */
async function unwritable(file: string, cwd: string): Promise<string | undefined> {
  const target = resolve(cwd, file);
  // The probe leaves nothing behind: emitReport is the only writer, so a usage error or a
  // refused configuration leaves no empty report file (or folder) for CI to pick up.
  const created: string[] = [];
  try {
    await ensureDirectory(dirname(target), created);
    try {
      await (await open(target, 'wx')).close();
      await unlink(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await (await open(target, 'a')).close();
    }
    return undefined;
  } catch (error) {
    return `cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  } finally {
    for (const dir of created.reverse()) await rmdir(dir).catch(() => undefined);
  }
}

/** Makes `dir` and its missing parents, recording each folder it made (outermost first). */
async function ensureDirectory(dir: string, created: string[]): Promise<void> {
  try {
    if ((await stat(dir)).isDirectory()) return;
  } catch {
    if (dirname(dir) === dir) throw new Error(`no such folder: ${dir}`);
    await ensureDirectory(dirname(dir), created);
    await mkdir(dir);
    created.push(dir);
    return;
  }
  throw Object.assign(new Error(`not a folder: ${dir}`), { code: 'ENOTDIR' });
}
