export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** A payload kept in the application's own store; the queue carries only its address and digest. */
export interface PayloadRef {
  uri: string;
  /** Lower-case hex SHA-256 of the RFC 8785 canonical JSON of the referenced payload. */
  sha256: string;
}

interface EnvelopeBase {
  v: 1;
  /** The logical business transition (`payment_8472:settled:v3`): the idempotency key everywhere. */
  event_id: string;
  type: string;
  /** RFC 3339 timestamp of the business transition, not of the publish. */
  occurred_at: string;
  /** Lower-case hex SHA-256 over the RFC 8785 canonical JSON of the payload. */
  payload_sha256: string;
}

export interface InlineEnvelope extends EnvelopeBase {
  payload: JsonValue;
  payload_ref?: never;
}

export interface ReferenceEnvelope extends EnvelopeBase {
  payload_ref: PayloadRef;
  payload?: never;
}

/** Version 1 of the application-owned envelope. A provider change never changes it. */
export type Envelope = InlineEnvelope | ReferenceEnvelope;

/** What an application hands to `publish`: the digest is computed for it when absent. */
export type EnvelopeInput =
  | (Omit<InlineEnvelope, 'payload_sha256' | 'v' | 'occurred_at'> & {
      v?: 1;
      occurred_at?: string;
      payload_sha256?: string;
    })
  | (Omit<ReferenceEnvelope, 'payload_sha256' | 'v' | 'occurred_at'> & {
      v?: 1;
      occurred_at?: string;
      payload_sha256?: string;
    });

export const ENVELOPE_VERSION = 1;
