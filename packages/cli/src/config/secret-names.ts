import { isEnvironmentVariableName, registeredSecretPatterns } from '@queueport/core/driver';

/**
 * What looks like a secret, by name. One list for the configuration check (a secret written
 * into the file is refused) and the output redaction (the environment's secrets are masked).
 * A provider's key formats are its adapter's to declare (`secretPatterns`, registered once its
 * definition loads; the CLI loads every installed built-in before it reads a configuration):
 * only the forms no queueport package owns are written here.
 */

/** Environment variables whose values are masked in every output. */
const SECRET_ENV_NAME = /(KEY|SECRET|TOKEN|PASS|CREDENTIAL)/i;

/** Configuration keys and URL query parameters that would hold a secret's value. */
const SECRET_FIELD_NAME =
  /(secret|passw|passwd|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth)/i;

/** `secretEnv`, `keyEnv`, `passwordEnv`: a field that names where a secret lives, not the secret. */
const NAMES_AN_ENV = /Env$/;

/**
 * A variable's name, as the configuration's `*Env` fields and URL options take it: core's one
 * rule, the one the adapters read by and `redactUrl` shows by (upper case, POSIX-portable).
 */
export { isEnvironmentVariableName };

/**
 * A key the process environment holds, which may be any case (`npm_config_token`): quoted in a
 * warning only when it reads as a word. Not a rule for names queueport takes; that is
 * `isEnvironmentVariableName`.
 */
export function isPrintableEnvironmentKey(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(key);
}

export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name);
}

export function isSecretFieldName(name: string): boolean {
  return SECRET_FIELD_NAME.test(name) && !NAMES_AN_ENV.test(name);
}

export function namesAnEnv(name: string): boolean {
  return NAMES_AN_ENV.test(name);
}

/**
 * Whether a name may be quoted in a message: a short, plain identifier. Anything else may be a
 * pasted secret that landed where a name belongs.
 */
export function isShowableName(name: string): boolean {
  return (
    /^[A-Za-z_$][A-Za-z0-9_$.-]{0,31}$/.test(name) &&
    !/^(sk|pk|ghp|gho|ghs|github_pat|xox[a-z]?)[_-]?/i.test(name) &&
    !matchesRegisteredPattern(name) &&
    !looksGenerated(name)
  );
}

/**
 * A word from a URL (a host, a path segment, an option's name or value) that may be quoted in a
 * message: short and plain, or a small number. Anything else may be a token pasted in the wrong
 * place.
 */
export function isShowableWord(word: string): boolean {
  return /^[0-9]{1,10}$/.test(word) || (isShowableName(word) && !looksLikeSecretValue(word));
}

/** A variable's name that may be quoted: not a pasted secret that happens to fit the syntax. */
export function isShowableEnvName(name: string): boolean {
  return isEnvironmentVariableName(name) && !looksGenerated(name) && !looksLikeSecretValue(name);
}

/**
 * Reads as generated rather than typed: a long run mixing letters and digits (an access key id,
 * a hex or base64 token). Names people give (`stalledIntervalMs`, `eu-west-1`) have few digits.
 */
function looksGenerated(text: string): boolean {
  const digits = (text.match(/[0-9]/g) ?? []).length;
  const letters = (text.match(/[A-Za-z]/g) ?? []).length;
  return text.length >= 12 && digits >= 3 && letters >= 3;
}

/**
 * A value that is a known secret format, wherever it was written: a format a package registered,
 * or one of the well-known tokens no queueport package owns.
 */
export function looksLikeSecretValue(value: string): boolean {
  return (
    /^(sk_live_|sk_test_|ghp_|xox[abp]-)/i.test(value) ||
    /^bearer\s/i.test(value) ||
    matchesRegisteredPattern(value)
  );
}

/** Whether any registered secret pattern (`registerSecretPatterns`) finds a secret in the text. */
function matchesRegisteredPattern(text: string): boolean {
  // Fresh copies each call: a global pattern's lastIndex would carry over between texts.
  return registeredSecretPatterns().some((pattern) => pattern.test(text));
}
