import { QueueError } from '../errors';
import { MAX_EVENT_ID_BYTES } from '../limits';
import { payloadDigest } from './digest';
import { describeSchemaErrors, validateEnvelopeShape } from './schema';
import type { Envelope, EnvelopeInput, JsonValue } from './types';

function invalid(problems: string[], eventId?: unknown): QueueError {
  return new QueueError('INVALID_ENVELOPE', `invalid envelope: ${problems.join('; ')}`, {
    details: { problems, ...(typeof eventId === 'string' ? { event_id: eventId } : {}) },
  });
}

/**
 * Completes an application's input into a full envelope (version, timestamp, digest) and checks
 * it. Throws INVALID_ENVELOPE naming every problem at once.
 */
export function prepareEnvelope(input: EnvelopeInput, now: () => Date = () => new Date()): Envelope {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalid(['envelope must be an object']);
  }
  const raw = input as Record<string, unknown>;
  const hasPayload = Object.hasOwn(raw, 'payload') && raw.payload !== undefined;
  const ref = raw.payload_ref as { sha256?: unknown } | undefined;
  const problems: string[] = [];
  if (hasPayload) problems.push(...jsonProblems(raw.payload, 'payload'));
  if (problems.length > 0) throw invalid(problems, raw.event_id);

  let digest = raw.payload_sha256;
  // A digest we compute here is right by construction; only one the caller supplied is checked.
  const computed = digest === undefined && hasPayload;
  if (digest === undefined) {
    if (hasPayload) digest = payloadDigest(raw.payload as JsonValue);
    else if (ref && typeof ref === 'object') digest = ref.sha256;
  }
  const candidate: Record<string, unknown> = {
    ...raw,
    v: raw.v ?? 1,
    occurred_at: raw.occurred_at ?? now().toISOString(),
    payload_sha256: digest,
  };
  if (!hasPayload) delete candidate.payload;
  return checkEnvelope(candidate, !computed);
}

/** Checks a complete envelope, as read back from a queue: shape, id length, and digest. */
export function assertEnvelope(value: unknown): Envelope {
  return checkEnvelope(value, true);
}

/**
 * Canonicalising and hashing a 256 KB payload is the costly part, so it is skipped when the
 * payload was just checked and hashed by prepareEnvelope.
 */
function checkEnvelope(value: unknown, verifyPayload: boolean): Envelope {
  if (!validateEnvelopeShape(value)) {
    throw invalid(
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
  } else if (verifyPayload) {
    problems.push(...jsonProblems(envelope.payload, 'payload'));
    if (problems.length === 0 && payloadDigest(envelope.payload) !== envelope.payload_sha256) {
      problems.push('payload_sha256 does not match the payload');
    }
  }
  if (problems.length > 0) throw invalid(problems, envelope.event_id);
  return envelope;
}

/** JSON Schema cannot see NaN, undefined or class instances; canonical JSON needs plain data. */
function jsonProblems(value: unknown, path: string, depth = 0): string[] {
  if (depth > 64) return [`${path} nests deeper than 64 levels`];
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} is not a finite number`];
  if (Array.isArray(value)) return value.flatMap((item, i) => jsonProblems(item, `${path}[${i}]`, depth + 1));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return [`${path} is not a plain JSON object`];
    return Object.entries(value).flatMap(([key, item]) => jsonProblems(item, `${path}.${key}`, depth + 1));
  }
  return [`${path} is not JSON (${typeof value})`];
}
