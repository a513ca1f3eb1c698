/**
 * What looks like a secret, by name. One list for the configuration check (a secret written
 * into the file is refused) and the output redaction (the environment's secrets are masked).
 */

/** Environment variables whose values are masked in every output. */
const SECRET_ENV_NAME = /(KEY|SECRET|TOKEN|PASS|CREDENTIAL)/i;

/** Configuration keys and URL query parameters that would hold a secret's value. */
const SECRET_FIELD_NAME =
  /(secret|passw|passwd|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth)/i;

/** `secretEnv`, `keyEnv`, `passwordEnv`: a field that names where a secret lives, not the secret. */
const NAMES_AN_ENV = /Env$/;

/** A variable's name, as the configuration's `*Env` fields take it. */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

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
  return /^[A-Za-z_$][A-Za-z0-9_$.-]{0,47}$/.test(name) && !/^(ifr|whsec|sk|pk|ghp|xox)[_-]/i.test(name);
}

/** A value that is a known secret format, wherever it was written. */
export function looksLikeSecretValue(value: string): boolean {
  return /^(ifr_|whsec_|sk_live_|sk_test_|ghp_|xox[abp]-)/i.test(value) || /^bearer\s/i.test(value);
}
