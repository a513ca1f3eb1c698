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
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, 'REDACTED');
  }
  return parsed.toString();
}
