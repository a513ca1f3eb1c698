import type { Destination } from '../sender-types';
import { secretFragments } from '../signing/signing-secret';

/**
 * Query parameters whose value is a credential by its name, whatever it looks like (`?sig=`,
 * `?token=`, a pre-signed URL's `X-Amz-Signature`).
 */
const SECRET_PARAMETER = /(sig|signature|token|secret|key|auth|pass|password|pwd|credential|code|hmac)/i;

/**
 * A path segment or query value with a digit, an upper-case letter or a symbol in it, and at
 * least 8 characters, reads as a token (`/services/T0/B0/XXXX`, `/hooks/9f2c…`); so does any
 * of 20 or more. Plain lower-case words (`webhooks`, `services`) are routing, and masking them
 * would garble every sample that names the endpoint.
 */
function looksLikeToken(value: string): boolean {
  if (value.length >= 20) return true;
  return value.length >= 8 && !/^[a-z._-]+$/.test(value);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every value of a destination a receiver could echo back that must never reach an outcome. */
export function destinationSecrets(destination: Destination): string[] {
  const secrets = new Set<string>(secretFragments(destination.secrets ?? []));
  for (const value of Object.values(destination.headers ?? {})) {
    for (const part of headerCredentials(value)) secrets.add(part);
  }
  for (const part of urlCredentials(destination.url)) secrets.add(part);
  return [...secrets];
}

/**
 * The whole value, and for `<scheme> <credentials>` (`Bearer …`, `Basic …`) the credentials
 * alone; for Basic also what they decode to, `user:password`, and the password.
 */
function headerCredentials(value: string): string[] {
  const parts = [value];
  const scheme = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S.*)$/.exec(value.trim());
  if (!scheme) return parts;
  const credentials = scheme[2]!.trim();
  parts.push(credentials);
  if (scheme[1]!.toLowerCase() === 'basic' && /^[A-Za-z0-9+/]+={0,2}$/.test(credentials)) {
    const pair = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon > 0 && !pair.includes('\ufffd')) parts.push(pair, pair.slice(colon + 1));
  }
  return parts;
}

/** The user and password, token-like path segments, and query values that are credentials. */
function urlCredentials(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const parts: string[] = [];
  for (const userinfo of [url.username, url.password]) {
    if (userinfo) parts.push(userinfo, decoded(userinfo));
  }
  for (const segment of url.pathname.split('/')) {
    const value = decoded(segment);
    if (looksLikeToken(value)) parts.push(segment, value);
  }
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAMETER.test(name) || looksLikeToken(value)) parts.push(value);
  }
  return parts;
}
