import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { JsonReader } from './read-json';
import type { JsonValue } from './types';

/**
 * The bound on what the standalone helpers (`canonicalJson`, `payloadDigest`, `prepareEnvelope`,
 * `encodeEnvelope`) will serialise: the largest body any supported provider takes (SQS: 1 MiB),
 * four times the portable limit. A Queue passes its own, smaller limit. It keeps a graph whose
 * shared parts expand when serialised from hanging the caller, while tools may still build
 * envelopes past the portable limit to test it.
 */
export const DEFAULT_MAX_ENCODED_BYTES = 1_048_576;

export interface EncodeOptions {
  /** PAYLOAD_TOO_LARGE as soon as the encoded form is known to be larger. */
  maxBytes?: number;
}

/**
 * RFC 8785 (JCS) canonical JSON: the same bytes for the same value on every machine. The value
 * is read once into a snapshot and checked first: anything canonical JSON cannot carry
 * faithfully (a cycle, a hole, a lone surrogate, NaN, a class instance) is INVALID_ENVELOPE,
 * never a hang or a stack overflow.
 */
export function canonicalJson(value: JsonValue, options: EncodeOptions = {}): string {
  return canonicalText(snapshotJson(value, 'value', options.maxBytes));
}

/** The digest the envelope carries and the ledger compares: SHA-256 of the canonical payload. */
export function payloadDigest(payload: JsonValue, options: EncodeOptions = {}): string {
  return sha256Hex(canonicalText(snapshotJson(payload, 'payload', options.maxBytes)));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Canonical JSON of a value `JsonReader` has read already: plain data, no check repeated. */
export function canonicalText(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/**
 * Canonical JSON of plain data just parsed from JSON (a provider's answer): `JSON.stringify`
 * where every object already enumerates its keys in canonical order, as data parsed from
 * canonical text does, and the full canonicalization only where one does not.
 */
export function canonicalJsonOfParsed(value: JsonValue): string {
  return inCanonicalOrder(value) ? JSON.stringify(value) : canonicalText(value);
}

/** SHA-256 of the canonical form of a payload `JsonReader` has read already. */
export function checkedPayloadDigest(payload: JsonValue): string {
  return sha256Hex(inCanonicalOrder(payload) ? JSON.stringify(payload) : canonicalText(payload));
}

/**
 * Whether every object in a value `JsonReader` has read already enumerates its keys in RFC
 * 8785's order (sorted by UTF-16 code units), as a payload parsed from a canonical body always
 * does. Then `JSON.stringify` writes exactly the canonical text: RFC 8785 takes its number and
 * string forms from ECMAScript's, and keys come out as enumerated. That skips canonicalize's
 * sort and string building on every received message; anything out of order takes that road.
 */
function inCanonicalOrder(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!inCanonicalOrder(item)) return false;
    return true;
  }
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!inCanonicalOrder(value[key] as JsonValue)) return false;
  }
  return true;
}

function snapshotJson(value: unknown, name: string, maxBytes = DEFAULT_MAX_ENCODED_BYTES): JsonValue {
  const reader = new JsonReader({ maxBytes, copy: true });
  return reader.settle(
    () => reader.read(name, value),
    () => undefined,
    name,
  ) as JsonValue;
}
