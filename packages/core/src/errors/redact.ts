/**
 * Provider errors echo requests back (headers, URLs with keys). Anything from outside that
 * reaches an error message passes through here first.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /(bearer\s+)[^\s"',]+/gi,
  /\b(ifr_[A-Za-z0-9_]+)/g,
  /\b(whsec_[A-Za-z0-9+/=]+)/g,
  /((?:api[_-]?key|secret|token|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',&]+/gi,
];

export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: string) =>
      match.startsWith(prefix) && prefix !== match ? `${prefix}[REDACTED]` : '[REDACTED]',
    );
  }
  return out;
}
