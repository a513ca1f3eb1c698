import { QueueError } from '../errors';
import { canonicalJson } from './digest';
import type { Envelope, JsonValue } from './types';
import { assertEnvelope } from './validate';

/** The wire form of an envelope: canonical JSON, so its byte size is the same everywhere. */
export function encodeEnvelope(envelope: Envelope): string {
  return canonicalJson(envelope as unknown as JsonValue);
}

/** Parses and fully checks a body read from a queue; a corrupted body is INVALID_ENVELOPE. */
export function decodeEnvelope(body: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new QueueError('INVALID_ENVELOPE', 'invalid envelope: message body is not JSON', {
      details: { problems: ['body is not JSON'] },
    });
  }
  return assertEnvelope(parsed);
}
