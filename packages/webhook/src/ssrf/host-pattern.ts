/** Lower case, no IPv6 brackets, no trailing root dot: the form both sides are compared in. */
export function normaliseHost(host: string): string {
  let out = host.trim().toLowerCase();
  if (out.startsWith('[') && out.endsWith(']')) out = out.slice(1, -1);
  if (out.endsWith('.')) out = out.slice(0, -1);
  return out;
}

// Characters that would make `https://<entry>/` mean something else than a host (a path, a
// query, credentials) or that no host can contain.
const NOT_A_HOST = /[\s/?#@\\%]/;

/**
 * An `allowedHosts` entry in the form URL host names take (`*.` kept, IDN as punycode, IPv6
 * compressed), or undefined when it can never match a URL's host: it is compared with what
 * the WHATWG parser makes of the destination URL, so it is normalised by the same parser.
 */
export function normaliseAllowedHost(entry: string): string | undefined {
  const text = entry.trim();
  const wildcard = text.startsWith('*.');
  const host = wildcard ? text.slice(2) : text;
  if (host === '' || NOT_A_HOST.test(host)) return undefined;
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  if (wildcard && bracketed.startsWith('[')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(`https://${bracketed}/`);
  } catch {
    return undefined;
  }
  if (parsed.port !== '' || parsed.hostname === '') return undefined;
  const normalised = normaliseHost(parsed.hostname);
  return normalised === '' ? undefined : `${wildcard ? '*.' : ''}${normalised}`;
}

/** `*.example.com` matches any subdomain, never `example.com` itself; anything else matches exactly. */
export function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}
