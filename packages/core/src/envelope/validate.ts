import { MAX_EVENT_ID_BYTES } from '../limits';
import { canonicalText, checkedPayloadDigest, DEFAULT_MAX_ENCODED_BYTES, sha256Hex } from './digest';
import { invalidEnvelope, JsonReader, setOwn } from './read-json';
import { describeSchemaErrors, validateEnvelopeShape } from './schema';
import type { Envelope, EnvelopeInput, JsonValue } from './types';

export interface PrepareEnvelopeOptions {
  /**
   * Refuse with PAYLOAD_TOO_LARGE as soon as the encoded envelope is known to be larger, before
   * it is hashed or encoded. Default `DEFAULT_MAX_ENCODED_BYTES` (1 MiB); a Queue passes its own.
   */
  maxBytes?: number;
}

/**
 * Completes an application's input into a full envelope (version, timestamp, digest) and checks
 * it. Throws INVALID_ENVELOPE naming every problem at once, or PAYLOAD_TOO_LARGE.
 *
 * The input is read once, into a snapshot of plain data: what is checked, hashed and returned is
 * that snapshot, so a getter or proxy answering differently on each read changes nothing.
 */
export function prepareEnvelope(
  input: EnvelopeInput,
  now: () => Date = () => new Date(),
  options: PrepareEnvelopeOptions = {},
): Envelope {
  return prepareChecked(input, now, options).envelope;
}

/**
 * `prepareEnvelope` and the wire form in one pass, for the Queue's publishes: the payload's
 * canonical text, made once for its digest, is spliced into the envelope's canonical form
 * instead of being made again. The body is byte for byte `encodeEnvelope(envelope)`.
 */
export function prepareEncodedEnvelope(
  input: EnvelopeInput,
  options: PrepareEnvelopeOptions = {},
): { envelope: Envelope; body: string } {
  const { envelope, payloadText } = prepareChecked(input, () => new Date(), options);
  return { envelope, body: canonicalEnvelopeText(envelope, payloadText) };
}

function prepareChecked(
  input: EnvelopeInput,
  now: () => Date,
  options: PrepareEnvelopeOptions,
): { envelope: Envelope; payloadText: string | undefined } {
  const raw = snapshotEnvelope(input, options.maxBytes ?? DEFAULT_MAX_ENCODED_BYTES);
  const hasPayload = Object.hasOwn(raw, 'payload');
  const ref = raw.payload_ref as { sha256?: unknown } | undefined;
  const payloadText = hasPayload ? canonicalText(raw.payload as JsonValue) : undefined;
  const supplied = raw.payload_sha256;
  let digest = supplied;
  if (digest === undefined) {
    if (payloadText !== undefined) digest = sha256Hex(payloadText);
    else if (ref && typeof ref === 'object') digest = ref.sha256;
  }
  const candidate: Record<string, unknown> = {
    ...raw,
    v: raw.v ?? 1,
    occurred_at: raw.occurred_at ?? now().toISOString(),
    payload_sha256: digest,
  };
  // A digest made here is right by construction, and a supplied one that matches the text just
  // hashed is too; only a mismatch (or a payload_ref's) goes through the full check, which names it.
  const proven = payloadText !== undefined && (supplied === undefined || supplied === sha256Hex(payloadText));
  return { envelope: checkEnvelope(candidate, proven ? undefined : checkedPayloadDigest), payloadText };
}

/**
 * RFC 8785 for the envelope object, with the payload's canonical text given: members sorted by
 * their names' UTF-16 code units (what Array.prototype.sort compares), each name as JSON.stringify
 * writes it, which is what JCS prescribes for strings.
 */
function canonicalEnvelopeText(envelope: Envelope, payloadText: string | undefined): string {
  const fields = envelope as unknown as Record<string, JsonValue>;
  const members: string[] = [];
  for (const key of Object.keys(fields).sort()) {
    const value = key === 'payload' && payloadText !== undefined ? payloadText : canonicalText(fields[key]!);
    members.push(`${JSON.stringify(key)}:${value}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * Checks a complete envelope, as read back from a queue: shape, id length, and digest. A value
 * that is not plain data already is read into a snapshot first, as by `prepareEnvelope`.
 */
export function assertEnvelope(value: unknown, options: PrepareEnvelopeOptions = {}): Envelope {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return checkEnvelope(
    isObject ? snapshotEnvelope(value, options.maxBytes ?? DEFAULT_MAX_ENCODED_BYTES) : value,
    checkedPayloadDigest,
  );
}

/**
 * What `decodeEnvelope` hands over: the output of JSON.parse, a tree of plain data by
 * construction, so it is checked in place (no copy, no size limit: the body's length bounds it).
 */
export function assertParsedEnvelope(value: unknown): Envelope {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject) readFields(value as Record<string, unknown>, Number.POSITIVE_INFINITY, false);
  return checkEnvelope(value, checkedPayloadDigest);
}

/**
 * `assertParsedEnvelope` for the JSON.parse of a body `scanCanonicalEnvelope` accepted, given the
 * payload's text in that body. The scan proved what `readFields` would check (it could only have
 * found nothing), and that the text is the payload's canonical JSON: hashing it is the digest,
 * with no walk of the payload and no encoding of it again.
 */
export function assertCanonicalEnvelope(value: unknown, payloadText: string): Envelope {
  return checkEnvelope(value, () => sha256Hex(payloadText));
}

/**
 * The envelope's own fields, read once each. Undefined fields count as absent (`v`,
 * `occurred_at` and `payload_sha256` are then filled in); every other value must be JSON.
 */
export function snapshotEnvelope(input: unknown, maxBytes: number): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalidEnvelope(['envelope must be an object']);
  }
  return readFields(input as Record<string, unknown>, maxBytes, true);
}

function readFields(
  input: Record<string, unknown>,
  maxBytes: number,
  copy: boolean,
): Record<string, unknown> {
  const reader = new JsonReader({ maxBytes, copy });
  const fields: Record<string, unknown> = {};
  return reader.settle(
    () => {
      for (const key of Object.keys(input)) {
        const value = input[key];
        if (value === undefined) continue;
        // Unknown fields are the schema's to name; only their values are read here.
        setOwn(fields, key, reader.read(key, value));
      }
      return fields;
    },
    () => fields.event_id,
  );
}

/**
 * Canonicalising and hashing a 256 KB payload is the costly part, so `digestOf` is absent when
 * the payload was just hashed by prepareEnvelope, and hashes the body's own text when that is
 * canonical. Whichever it is, it is asked only where the digest was always compared, so every
 * refusal names the same problems. The value has been read by `readFields`, or proven to pass it.
 */
function checkEnvelope(value: unknown, digestOf: ((payload: JsonValue) => string) | undefined): Envelope {
  if (!validateEnvelopeShape(value)) {
    throw invalidEnvelope(
      describeSchemaErrors(validateEnvelopeShape.errors),
      (value as { event_id?: unknown })?.event_id,
    );
  }
  const envelope = value as unknown as Envelope;
  const problems: string[] = [];
  if (Buffer.byteLength(envelope.event_id, 'utf8') > MAX_EVENT_ID_BYTES) {
    problems.push(`event_id is longer than ${MAX_EVENT_ID_BYTES} bytes`);
  }
  if (envelope.payload_ref !== undefined) {
    if (envelope.payload_ref.sha256 !== envelope.payload_sha256) {
      problems.push('payload_sha256 differs from payload_ref.sha256');
    }
  } else if (digestOf !== undefined && digestOf(envelope.payload) !== envelope.payload_sha256) {
    problems.push('payload_sha256 does not match the payload');
  }
  if (problems.length > 0) throw invalidEnvelope(problems, envelope.event_id);
  return envelope;
}
