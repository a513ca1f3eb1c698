import { QueueError } from '@queueport/core';

/**
 * Reads an S3 body (a Node stream or a web stream) into memory, stopping once it passes
 * `maxBytes`: a body longer than it said is never buffered whole.
 */
export async function readBounded(body: unknown, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const iterable = asyncIterableOf(body);
  for await (const chunk of iterable) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
    total += bytes.byteLength;
    chunks.push(bytes);
    if (total >= maxBytes) {
      (body as { destroy?: () => void }).destroy?.();
      break;
    }
  }
  return Buffer.concat(chunks, Math.min(total, maxBytes));
}

function asyncIterableOf(body: unknown): AsyncIterable<unknown> {
  if (body !== null && typeof body === 'object' && Symbol.asyncIterator in body) {
    return body as AsyncIterable<unknown>;
  }
  throw new QueueError('INTERNAL', 'the S3 client answered a body that cannot be read as a stream');
}
