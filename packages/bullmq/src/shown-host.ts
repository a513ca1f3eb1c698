/** Longer than this, a host is more likely a pasted token than a name someone reads. */
const MAX_SHOWN_CHARS = 100;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** A long label with digits in it reads as a token (an API key pasted as the host), not a name. */
const TOKEN_LIKE_LABEL = /^(?=.*[0-9])[a-z0-9-]{24,}$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]{1,2})\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]{1,2})$/;
const HIDDEN = '(host not shown)';
const IPV6 = /^[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}$/i;

/**
 * `host:port` for a message, the host shown only where it reads as a plain hostname or IP
 * literal: a refusal that names 127.0.0.1 or redis.internal is one an operator can act on,
 * while a host that is something else (a token typed in the wrong place) is never repeated.
 */
export function shownHostPort(host: string | undefined, port: number | undefined): string {
  return `${shownHost(host ?? '')}:${port ?? 6379}`;
}

export function shownHost(host: string): string {
  if (!isShowableHost(host)) return HIDDEN;
  return host.includes(':') ? `[${host}]` : host;
}

/** Whether the host reads as a plain hostname or IP literal (an IPv6 one without its brackets). */
export function isShowableHost(host: string): boolean {
  if (host.length === 0 || host.length > MAX_SHOWN_CHARS) return false;
  if (IPV4.test(host)) return true;
  if (host.includes(':')) return IPV6.test(host);
  const labels = host.replace(/\.$/, '').split('.');
  return labels.every((label) => LABEL.test(label) && !TOKEN_LIKE_LABEL.test(label));
}
