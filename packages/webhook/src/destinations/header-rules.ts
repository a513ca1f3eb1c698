import { IDEMPOTENCY_KEY_HEADER } from '../idempotency-key';

/**
 * Headers a destination may not set. The framing and hop-by-hop ones decide how the request
 * travels (a `content-length` or `transfer-encoding` of our choosing is request smuggling, a
 * `host` sends it to another virtual host behind the same address); the rest the sender owns,
 * since a stale `webhook-signature` or another `idempotency-key` silently breaks the receiver.
 */
export const SENDER_OWNED_HEADERS: readonly string[] = [
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  IDEMPOTENCY_KEY_HEADER,
];

/** Whole families: `proxy-authorization`, `proxy-connection`; `webhook-id`, `webhook-signature`. */
export const SENDER_OWNED_PREFIXES: readonly string[] = ['proxy-', 'webhook-'];

/** RFC 9110 §5.6.2 token. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/**
 * RFC 9110 §5.5 field-value restricted to US-ASCII: visible characters, with spaces and tabs
 * only inside (leading and trailing ones are stripped in transit, so the receiver would see
 * another value). obs-text (0x80-0xFF) is refused: a JavaScript string does not say which
 * bytes it should become, and the receiver would read whichever the HTTP stack picked.
 */
export const HEADER_VALUE_PATTERN = '^(?:[\\x21-\\x7e](?:[\\x20\\x21-\\x7e\\t]*[\\x21-\\x7e])?)?$';

/** Matches a sender-owned name in any letter case (schema patterns have no `i` flag). */
export const SENDER_OWNED_NAME_PATTERN = `^(?:${SENDER_OWNED_HEADERS.map(anyCase).join('|')}$|${SENDER_OWNED_PREFIXES.map(anyCase).join('|')})`;

export function isSenderOwnedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SENDER_OWNED_HEADERS.includes(lower) || SENDER_OWNED_PREFIXES.some((p) => lower.startsWith(p));
}

function anyCase(word: string): string {
  return [...word]
    .map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
}
