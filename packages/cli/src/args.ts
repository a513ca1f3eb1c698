import { type ParseArgsConfig, parseArgs } from 'node:util';
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
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"\n\n${usage}`);
  }
  return parsed as ParsedArgs<O>;
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
    throw new UsageError(`${flag} takes a whole number of at least ${min}, not "${value}"\n\n${usage}`);
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
