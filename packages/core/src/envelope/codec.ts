import { QueueError } from '../errors';
import { canonicalText, DEFAULT_MAX_ENCODED_BYTES, type EncodeOptions } from './digest';
import { invalidEnvelope } from './read-json';
import type { Envelope, JsonValue } from './types';
import { assertParsedEnvelope, snapshotEnvelope } from './validate';

/**
 * The wire form of an envelope: canonical JSON, so its byte size is the same everywhere. Its
 * fields are read and checked as JSON first, as `prepareEnvelope` reads them (the payload's
 * depth counted from the payload), so a cycle or a shared graph never hangs it, and whatever
 * `decodeEnvelope` accepted encodes again.
 */
export function encodeEnvelope(envelope: Envelope, options: EncodeOptions = {}): string {
  const fields = snapshotEnvelope(envelope, options.maxBytes ?? DEFAULT_MAX_ENCODED_BYTES);
  return canonicalText(fields as unknown as JsonValue);
}

/** Parses and fully checks a body read from a queue; a corrupted body is INVALID_ENVELOPE. */
export function decodeEnvelope(body: string): Envelope {
  if (typeof body !== 'string') throw invalidEnvelope(['body is not a string']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new QueueError('INVALID_ENVELOPE', 'invalid envelope: message body is not JSON', {
      details: { problems: ['body is not JSON'] },
    });
  }
  return assertParsedEnvelope(parsed);
}

/**
 * `decodeEnvelope` for a body a driver has parsed already (a provider that answers JSON): the
 * same checks, in place, without parsing the text a second time.
 */
export function decodeParsedEnvelope(parsed: unknown): Envelope {
  return assertParsedEnvelope(parsed);
}
