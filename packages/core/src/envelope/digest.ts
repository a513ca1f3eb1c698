import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { JsonValue } from './types';

/** RFC 8785 (JCS) canonical JSON: the same bytes for the same value on every machine. */
export function canonicalJson(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The digest the envelope carries and the ledger compares: SHA-256 of the canonical payload. */
export function payloadDigest(payload: JsonValue): string {
  return sha256Hex(canonicalJson(payload));
}
