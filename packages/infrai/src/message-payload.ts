import { canonicalJson, canonicalJsonOfParsed, type JsonValue, PROVIDER_ATTRIBUTES } from '@queueport/core';

/**
 * An Infrai message's payload is a JSON object, and Infrai documents no attributes. So a
 * queueport message travels as `{ attributes?, envelope, queueport: 1 }`: the envelope embedded
 * as the object it is (its canonical JSON text spliced in unchanged, so the bytes on the wire
 * are the envelope's own), the attributes beside it, and a mark that says whose message it is.
 */
export const PAYLOAD_MARK = 'queueport';

/**
 * Bytes the wrapper adds around the envelope, with room for JSON escaping of attribute values
 * (quotes, backslashes, control characters). A message whose escaped attributes still do not
 * fit Infrai's 256 KB fails alone with PAYLOAD_TOO_LARGE (the driver measures the real size).
 */
export const PAYLOAD_WRAPPER_BYTES = 1024;

/** The payload's canonical JSON, built around the envelope's own canonical text. */
export function payloadText(body: string, attributes: Readonly<Record<string, string>>): string {
  const names = Object.keys(attributes);
  // canonicalJson sorts keys: "attributes" < "envelope" < "queueport".
  const head = names.length > 0 ? `{"attributes":${canonicalJson(attributes as JsonValue)},` : '{';
  return `${head}"envelope":${body},"${PAYLOAD_MARK}":1}`;
}

export interface UnwrappedPayload {
  body: string;
  /** The envelope as parsed from Infrai's answer: what `JSON.parse(body)` gives. */
  parsed: unknown;
  attributes: Record<string, string>;
}

/**
 * The envelope's bytes and the attributes of a received payload. The envelope is canonical
 * JSON again (it went out canonical; Infrai may re-serialize it), so its digest still holds. A
 * payload that is not queueport's comes back as it is, for the Queue to refuse and report, and
 * so does one whose attributes are not what queueport writes (an object of at most
 * `PROVIDER_ATTRIBUTES` strings): no attribute is made up or dropped on the way in.
 */
export function unwrapPayload(payload: unknown): UnwrappedPayload {
  const object = payload as { envelope?: unknown; attributes?: unknown; [PAYLOAD_MARK]?: unknown } | null;
  if (!object || typeof object !== 'object' || object[PAYLOAD_MARK] !== 1 || object.envelope === undefined) {
    return foreign(payload);
  }
  let attributes: Record<string, string> = {};
  if (object.attributes !== undefined) {
    const given = object.attributes;
    if (!given || typeof given !== 'object' || Array.isArray(given)) return foreign(payload);
    const entries = Object.entries(given as Record<string, unknown>);
    if (entries.length > PROVIDER_ATTRIBUTES || entries.some(([, value]) => typeof value !== 'string')) {
      return foreign(payload);
    }
    // fromEntries defines own properties: an attribute named `__proto__` stays an attribute.
    attributes = Object.fromEntries(entries as Array<[string, string]>);
  }
  return { body: safeCanonical(object.envelope), parsed: object.envelope, attributes };
}

function foreign(payload: unknown): UnwrappedPayload {
  return { body: safeCanonical(payload), parsed: payload, attributes: {} };
}

function safeCanonical(value: unknown): string {
  try {
    // Parsed from Infrai's answer: plain data, usually in canonical key order already.
    return canonicalJsonOfParsed(value as JsonValue);
  } catch {
    return JSON.stringify(value) ?? '';
  }
}
