import { QueueError } from '../errors';
import { scanCanonicalEnvelope } from './canonical-text';
import { canonicalText, DEFAULT_MAX_ENCODED_BYTES, type EncodeOptions } from './digest';
import { invalidEnvelope } from './read-json';
import type { Envelope, JsonValue } from './types';
import { assertCanonicalEnvelope, assertParsedEnvelope, snapshotEnvelope } from './validate';

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

/**
 * Parses and fully checks a body read from a queue; a corrupted body is INVALID_ENVELOPE. A body
 * that is canonical text, as every one `encodeEnvelope` writes, is checked by a scan of its text
 * instead of a walk of every value, and its payload's digest is the hash of the payload's text
 * as it stands: same answer and same refusals as `decodeEnvelopeFully`, which the property tests
 * hold it to, at a fraction of the cost.
 */
export function decodeEnvelope(body: string): Envelope {
  const parsed = parseBody(body);
  const span = scanCanonicalEnvelope(body);
  if (span === undefined) return assertParsedEnvelope(parsed);
  return assertCanonicalEnvelope(parsed, body.slice(span.payloadStart, span.payloadEnd));
}

/**
 * The reference `decodeEnvelope` is proven equal to: every value walked, the payload encoded
 * again to be hashed. Kept for the tests and benchmarks that compare the two; not exported from
 * the package.
 */
export function decodeEnvelopeFully(body: string): Envelope {
  return assertParsedEnvelope(parseBody(body));
}

function parseBody(body: string): unknown {
  if (typeof body !== 'string') throw invalidEnvelope(['body is not a string']);
  try {
    return JSON.parse(body);
  } catch {
    throw new QueueError('INVALID_ENVELOPE', 'invalid envelope: message body is not JSON', {
      details: { problems: ['body is not JSON'] },
    });
  }
}

/**
 * `decodeEnvelope` for a body a driver has parsed already (a provider that answers JSON): the
 * same checks, in place, without parsing the text a second time.
 */
export function decodeParsedEnvelope(parsed: unknown): Envelope {
  return assertParsedEnvelope(parsed);
}
