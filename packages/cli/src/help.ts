import type { Command } from './command-context';
import { BUILT_IN_ADAPTERS } from './providers/built-in-adapters';

/** The providers the embedded defaults run in this process, named from the built-in list. */
const EMBEDDED = BUILT_IN_ADAPTERS.filter((adapter) => adapter.embedded)
  .map((adapter) => `${adapter.scheme}://`)
  .join(' and ');

export const TOP_USAGE = 'usage: queueport <command> [options]   (queueport <command> --help for its own)';

/** The top-level --help: every command with its summary, and the flags every command takes. */
export function topLevelHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `${TOP_USAGE}

The queueport CLI: the exit drill, the conformance suite, a migration canary, reconciliation,
the dead letters, webhook destinations and retention, against the providers and the ledger of a
configuration file.

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Options (before or after the command):
  --config <file>  the configuration (default: queueport.config.json, .mjs or .ts in the working
                   directory; with none, embedded defaults: in-process providers (${EMBEDDED}),
                   a SQLite ledger in a temp folder, a loopback receiver)
  --json           the report as JSON on stdout, and no progress
  --junit <file>   also write the report as JUnit XML to <file>, for CI
  --no-color       no colour (nor with NO_COLOR set); there is colour only on a terminal
  -h, --help       this help; \`queueport <command> --help\` for a command's
  --version        the version

Secrets come from environment variables the configuration names, never from the file, and no
output shows them.

SIGINT (Ctrl-C) or SIGTERM stops a command cleanly: scratch queues deleted, the report of what
ran written; the same signal again exits at once.

Exit status: 0 every check passed, 1 a check failed, 2 a usage or configuration error, 130
stopped by SIGINT, 143 stopped by SIGTERM.
`;
}
