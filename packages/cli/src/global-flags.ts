import { UsageError } from './errors';

export interface GlobalFlags {
  configPath: string | undefined;
  json: boolean;
  junitPath: string | undefined;
  noColor: boolean;
  /** --help before any command: the top-level help. */
  help: boolean;
  /** --help after the command's name: that command's help. */
  commandHelp: boolean;
  version: boolean;
  command: string | undefined;
  /** The command's own arguments, global flags taken out. */
  rest: string[];
}

const WITH_VALUE = new Set(['--config', '--junit']);

/**
 * Global flags are taken wherever they stand (`queueport --json drill` and `queueport drill
 * --json` mean the same), up to a `--`; everything else after the command's name is the command's.
 */
export function parseGlobalFlags(argv: readonly string[], usage: string): GlobalFlags {
  const flags: GlobalFlags = {
    configPath: undefined,
    json: false,
    junitPath: undefined,
    noColor: false,
    help: false,
    commandHelp: false,
    version: false,
    command: undefined,
    rest: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      flags.rest.push(...argv.slice(i));
      break;
    }
    const [name, inline] = splitInline(arg);
    if (WITH_VALUE.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) {
        throw new UsageError(`${name} takes a file\n\n${usage}`);
      }
      if (name === '--config') flags.configPath = value;
      else flags.junitPath = value;
    } else if (arg === '--json') flags.json = true;
    else if (arg === '--no-color') flags.noColor = true;
    else if (arg === '--help' || arg === '-h') {
      if (flags.command) flags.commandHelp = true;
      else flags.help = true;
    } else if (arg === '--version' && !flags.command) flags.version = true;
    else if (!flags.command && !arg.startsWith('-')) flags.command = arg;
    else if (!flags.command) throw new UsageError(`unknown option "${arg}"\n\n${usage}`);
    else flags.rest.push(arg);
  }
  return flags;
}

function splitInline(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}
