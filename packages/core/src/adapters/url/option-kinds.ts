import { ENVIRONMENT_VARIABLE_NAME_RULE, isEnvironmentVariableName } from './env-name';

/**
 * How one URL query option reads. `T` is what the grammar's `read` gives for it: the value's
 * type, with `undefined` unless the kind has a default. A kind never sees the option's name,
 * and never quotes the text it refuses: the grammar refuses it with `expected`.
 */
export interface OptionKind<T> {
  /** What a valid value reads as, for the refusal: `a whole number from 1 to 900`. */
  readonly expected: string;
  /** The value the text gives, or undefined where it gives none (the grammar refuses it). */
  parse(text: string): Exclude<T, undefined> | undefined;
  /** The value where the URL does not give the option. */
  readonly fallback: T;
  /** Set on options that name an environment variable: `AdapterUrls.envNames` lists them. */
  readonly namesVariable?: true;
}

/** What `read` gives for a record of option kinds. */
export type OptionValues<O extends Record<string, OptionKind<unknown>>> = {
  -readonly [K in keyof O]: O[K] extends OptionKind<infer T> ? T : never;
};

export interface WholeNumberBounds {
  /** Default 0: 0 is accepted only where an option's meaning allows it. */
  min?: number;
  /** Default Number.MAX_SAFE_INTEGER. */
  max?: number;
}

const DIGITS = /^[0-9]+$/;

function wholeNumber(unit: string, bounds: WholeNumberBounds, fallback: number | undefined) {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const range = max === Number.MAX_SAFE_INTEGER ? (min === 0 ? '' : ` ≥ ${min}`) : ` from ${min} to ${max}`;
  return {
    expected: `a whole number${unit}${range}`,
    parse(text: string): number | undefined {
      if (!DIGITS.test(text)) return undefined;
      const n = Number(text);
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
    },
    fallback,
  };
}

/** A whole-number kind: with a `default`, its value is always a number. */
export interface WholeNumberKind {
  (bounds: WholeNumberBounds & { default: number }): OptionKind<number>;
  (bounds?: WholeNumberBounds): OptionKind<number | undefined>;
}

const wholeNumberKind = (unit: string): WholeNumberKind =>
  ((bounds: WholeNumberBounds & { default?: number } = {}) =>
    wholeNumber(unit, bounds, bounds.default)) as WholeNumberKind;

/** Digits only (no sign, exponent, fraction or space), within `min`..`max`. */
export const integer = wholeNumberKind('');
/** A whole number of seconds, within bounds. */
export const seconds = wholeNumberKind(' of seconds');
/** A whole number of milliseconds, within bounds. */
export const milliseconds = wholeNumberKind(' of milliseconds');

/** `true` or `false`, exactly: `1`, `yes` and `TRUE` are refused, not guessed. */
export function boolean(options: { default: boolean }): OptionKind<boolean>;
export function boolean(): OptionKind<boolean | undefined>;
export function boolean(options: { default?: boolean } = {}): OptionKind<boolean | undefined> {
  return {
    expected: 'true or false',
    parse: (text) => (text === 'true' ? true : text === 'false' ? false : undefined),
    fallback: options.default,
  };
}

export interface TextRule {
  /** Default: any non-empty text. */
  pattern?: RegExp;
  /** What the pattern accepts, for the refusal: `a region such as eu-west`. */
  expected?: string;
}

/** Text as given; empty is refused (an option given empty is more likely a slip than a value). */
export function string(rule: TextRule & { default: string }): OptionKind<string>;
export function string(rule?: TextRule): OptionKind<string | undefined>;
export function string(rule: TextRule & { default?: string } = {}): OptionKind<string | undefined> {
  return {
    expected: rule.expected ?? 'a non-empty text',
    parse: (text) => (text !== '' && (rule.pattern?.test(text) ?? true) ? text : undefined),
    fallback: rule.default,
  };
}

/** One of `values`, exactly as written. */
export function oneOf<const V extends string>(
  values: readonly V[],
  options: { default: NoInfer<V> },
): OptionKind<V>;
export function oneOf<const V extends string>(values: readonly V[]): OptionKind<V | undefined>;
export function oneOf<const V extends string>(
  values: readonly V[],
  options: { default?: V } = {},
): OptionKind<V | undefined> {
  return {
    expected: `one of ${values.join(', ')}`,
    parse: (text) => ((values as readonly string[]).includes(text) ? (text as V) : undefined),
    fallback: options.default,
  };
}

/**
 * The name of the environment variable that holds a secret (`passwordEnv=REDIS_PASSWORD`), by
 * the one rule `isEnvironmentVariableName`; `default` is the variable read where the URL names
 * none (Infrai's `INFRAI_API_KEY`). The kit never reads the variable: `readEnv` does, with the
 * adapter's `env`.
 */
export function environmentVariable(options: { default: string }): OptionKind<string>;
export function environmentVariable(): OptionKind<string | undefined>;
export function environmentVariable(options: { default?: string } = {}): OptionKind<string | undefined> {
  return {
    expected: ENVIRONMENT_VARIABLE_NAME_RULE,
    parse: (text) => (isEnvironmentVariableName(text) ? text : undefined),
    fallback: options.default,
    namesVariable: true,
  };
}

/**
 * A provider's own value shape (memory's `dedupe=window:300`, SQS's `endpoint=`): `parse`
 * returns undefined for text it refuses.
 */
export function custom<T>(rule: {
  expected: string;
  parse(text: string): T | undefined;
}): OptionKind<T | undefined> {
  return {
    expected: rule.expected,
    parse: (text) => rule.parse(text) as Exclude<T, undefined> | undefined,
    fallback: undefined,
  };
}

/** The option kinds, under one name: `options: { db: urlOption.integer({ min: 0 }) }`. */
export const urlOption = {
  integer,
  seconds,
  milliseconds,
  boolean,
  string,
  oneOf,
  environmentVariable,
  custom,
} as const;
