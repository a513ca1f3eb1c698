import { type JsonValue, payloadDigest, sha256Hex } from '@queueport/core';

/**
 * Which business transition a request carries, read from what was posted (and signed), never
 * from a header: a worker that changes `Idempotency-Key` or `webhook-id` between attempts still
 * names the same transition in its body.
 */
export interface BusinessIdentity {
  /** The envelope's `event_id` from the JSON body; the header id only when the body has none. */
  eventId: string;
  /**
   * For an envelope: SHA-256 of the RFC 8785 canonical JSON of its inline payload (what its
   * `payload_sha256` must say), or its `payload_sha256` for a referenced payload. Otherwise the
   * SHA-256 of the body.
   */
  payloadSha256: string;
  /** `body` when both came from an envelope in the body, `headers` for a body that is none. */
  source: 'body' | 'headers';
}

export function businessIdentity(body: string, headerId: string | undefined): BusinessIdentity {
  const envelope = parseObject(body);
  const eventId = envelope?.event_id;
  if (envelope && typeof eventId === 'string' && eventId !== '') {
    const payloadSha256 =
      envelope.payload !== undefined
        ? payloadDigest(envelope.payload)
        : typeof envelope.payload_sha256 === 'string'
          ? envelope.payload_sha256
          : sha256Hex(body);
    return { eventId, payloadSha256, source: 'body' };
  }
  return { eventId: headerId ?? '', payloadSha256: sha256Hex(body), source: 'headers' };
}

function parseObject(body: string): Record<string, JsonValue> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, JsonValue>)
      : undefined;
  } catch {
    return undefined;
  }
}
