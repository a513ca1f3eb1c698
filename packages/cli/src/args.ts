import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isShowableName, isShowableWord } from './config/secret-names';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/**
 * A command's own flags, strictly: an unknown flag, a missing value or a stray argument is a
 * UsageError that carries the command's usage, so the person sees at once what it takes.
 */
export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
  usage: string,
  { positionals = 0 }: { positionals?: number } = {},
): ParsedArgs<O> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: positionals > 0 });
  } catch (error) {
    throw new UsageError(
      `${withheld(error instanceof Error ? error.message : String(error), argv)}\n\n${usage}`,
    );
  }
  if (parsed.positionals.length > positionals) {
    const stray = parsed.positionals[positionals]!;
    const shown = isShowableArg(stray)
      ? `"${stray}"`
      : `(argument ${argv.indexOf(stray) + 1} after the command, not shown: it may be a secret)`;
    throw new UsageError(`unexpected argument ${shown}\n\n${usage}`);
  }
  return parsed as ParsedArgs<O>;
}

/** What was typed, as a flag (`--name`, `-x`) or a word: quoted only when it reads as a name. */
function isShowableArg(arg: string): boolean {
  return isShowableName(arg.replace(/^-{1,2}/, ''));
}

/**
 * parseArgs' message, with each argument it quotes that may be a pasted secret replaced by its
 * position: `Unknown option '--<a provider key>'` must not print the key someone pasted after a flag.
 */
function withheld(message: string, argv: readonly string[]): string {
  const typed = argv.flatMap((arg, index) => {
    const flag = arg.startsWith('-') ? arg.split('=')[0]! : arg;
    return [...new Set([arg, flag])].map((text) => ({ text, index }));
  });
  let shown = message;
  for (const { text, index } of typed.sort((a, b) => b.text.length - a.text.length)) {
    if (isShowableArg(text)) continue;
    const placeholder = `(argument ${index + 1} after the command, not shown: it may be a secret)`;
    shown = shown.split(`'${text}'`).join(placeholder);
    // Node's hint repeats the argument in other quotes; a short word such as `1` stays, as it
    // could be part of any sentence, and is no secret.
    if (text.length >= 8) shown = shown.split(text).join(placeholder);
  }
  return shown;
}

/** A whole number of at least `min`, for flags such as --limit and --runs. */
export function intOption(
  value: string | undefined,
  flag: string,
  usage: string,
  min = 1,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
    const shown = isShowableWord(value) || /^[-+0-9.]{1,16}$/.test(value) ? `, not "${value}"` : '';
    throw new UsageError(`${flag} takes a whole number of at least ${min}${shown}\n\n${usage}`);
  }
  return n;
}

/** `--only a,b`: a comma-separated list, blanks dropped. */
export function listOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function requireOption(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required\n\n${usage}`);
  return value;
}
