import type { IncomingMessage } from 'node:http';
import { canonicalJson, type JsonValue } from '@queueport/core';
import { MAX_BODY_BYTES } from './queue-rules';
import { SimulatorError } from './simulator-error';

export type ReceivedBody = { kind: 'bytes'; bytes: Buffer } | { kind: 'too-large'; bytes: number };

/** The whole body, kept only up to the limit; the rest is read and dropped so the answer can be sent. */
export async function receiveBody(req: IncomingMessage): Promise<ReceivedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES
    ? { kind: 'too-large', bytes: size }
    : { kind: 'bytes', bytes: Buffer.concat(chunks) };
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const CANONICAL_HINT = 'send RFC 8785 canonical JSON (sorted keys, no spaces) followed by one newline';

/**
 * A POST body as Infrai's conventions say it must be: content-type application/json, UTF-8,
 * canonical JSON and one trailing newline. Anything else is refused, not repaired, so a client
 * that gets it wrong finds out here rather than against the real API.
 */
export function parseCanonicalBody(
  body: ReceivedBody,
  contentType: string | undefined,
): Record<string, unknown> {
  if (body.kind === 'too-large') {
    throw new SimulatorError(
      'PAYLOAD_TOO_LARGE',
      `the request body is ${body.bytes} bytes; at most ${MAX_BODY_BYTES}`,
    );
  }
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  const charset = /;\s*charset=("?)([^";\s]+)\1/i.exec(contentType ?? '')?.[2]?.toLowerCase();
  if (mediaType !== 'application/json' || (charset !== undefined && charset !== 'utf-8')) {
    throw refuse(`the request body must be application/json in UTF-8, not ${contentType ?? 'unlabelled'}`);
  }
  let text: string;
  try {
    text = utf8.decode(body.bytes);
  } catch {
    throw refuse('the request body is not valid UTF-8');
  }
  if (!text.endsWith('\n')) throw refuse('the request body must end with one newline');
  const json = text.slice(0, -1);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw refuse('the request body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refuse('the request body must be a JSON object');
  }
  if (!isCanonical(value, json)) {
    throw refuse('the request body is not canonical JSON (RFC 8785: sorted keys, no spaces)');
  }
  return value as Record<string, unknown>;
}

export function refuseBody(): SimulatorError {
  return refuse(
    'GET and DELETE take their parameters from the path and the query string, not a body',
    'send no body; put the parameters in the query string',
  );
}

function isCanonical(value: unknown, text: string): boolean {
  try {
    return canonicalJson(value as JsonValue, { maxBytes: MAX_BODY_BYTES }) === text;
  } catch {
    return false;
  }
}

function refuse(message: string, hint = CANONICAL_HINT): SimulatorError {
  return new SimulatorError('VALIDATION_ERROR', message, { hint });
}
