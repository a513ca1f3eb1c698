const SECRET_PARAMETER = /(key|secret|token|password|credential|signature|auth)/i;

/** A URL as it may appear in an error or a log line: no password, no secret-looking query values. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return '[unparseable URL]';
  }
  if (parsed.password) parsed.password = 'REDACTED';
  for (const [name, value] of [...parsed.searchParams.entries()]) {
    if (SECRET_PARAMETER.test(name) && !namesVariable(name, value)) parsed.searchParams.set(name, 'REDACTED');
  }
  return parsed.toString();
}

/**
 * `passwordEnv=REDIS_PASSWORD`, `keyEnv=INFRAI_API_KEY`: the name of the variable that holds
 * the secret, which is what a person needs to see. Kept only when it reads as a conventional
 * variable name (upper case), so a secret pasted in by mistake is still masked.
 */
function namesVariable(parameter: string, value: string): boolean {
  return /Env$/.test(parameter) && /^[A-Z][A-Z0-9_]{0,63}$/.test(value);
}
