import { QueueError } from '../../errors';

/**
 * The one rule for what an environment variable's name is, wherever queueport takes one (a URL's
 * `*Env` option, a configuration's `secretEnv`), shows one (`redactUrl`) or reads one: upper-case
 * letters, digits and `_`, not starting with a digit, at most 64 characters. POSIX calls these
 * the portable names; holding to them means a lower-case word (`passwordEnv=redis_pw`, more
 * likely a pasted value than a name) is refused where it is given instead of being read as a
 * variable and then masked as a secret in every log.
 */
const ENVIRONMENT_VARIABLE_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;

export function isEnvironmentVariableName(name: string): boolean {
  return ENVIRONMENT_VARIABLE_NAME.test(name);
}

/** What `isEnvironmentVariableName` accepts, for refusals. */
export const ENVIRONMENT_VARIABLE_NAME_RULE =
  "an environment variable's name (upper-case letters, digits and _, not starting with a digit)";

export interface EnvironmentVariableSource {
  /** The URL's scheme, for the message: `bullmq`. */
  scheme: string;
  /** The option that named the variable: `passwordEnv`. */
  option: string;
}

/**
 * The value of the variable a URL option named, from `env` only (never a fallback to
 * process.env: the caller decides where secrets come from). Unset and empty are refused alike,
 * naming the variable (a name that passed the rule, so no pasted secret) but never a value.
 */
export function readEnv(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  source: EnvironmentVariableSource,
): string {
  const value = isEnvironmentVariableName(name) ? env[name] : undefined;
  if (value === undefined || value === '') {
    const named = isEnvironmentVariableName(name) ? `the variable ${name}` : 'a variable';
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${source.scheme}:// option ${source.option} names ${named}, which is not set or is empty`,
      { details: { field: source.option } },
    );
  }
  return value;
}
