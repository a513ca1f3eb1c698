import type { ResponseSample } from '../sender-types';

/**
 * Reads at most `maxBytes` of a response body, then destroys the stream. A receiver cannot make
 * us buffer an endless answer, and the connection is never left half-read (which would stall
 * the keep-alive pool). A body that breaks off early is reported as truncated, not as an error:
 * the status line already decided the outcome.
 */
export async function readCappedBody(
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  maxBytes: number,
): Promise<ResponseSample> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    if (maxBytes <= 0) {
      truncated = true;
    } else {
      for await (const chunk of body) {
        const room = maxBytes - size;
        if (chunk.byteLength > room) {
          chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, room));
          size += room;
          truncated = true;
          break;
        }
        chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        size += chunk.byteLength;
      }
    }
  } catch {
    truncated = true;
  }
  // Destroying a fully read body is left out on purpose: it would close a reusable connection.
  if (truncated) body.destroy();
  return { body: Buffer.concat(chunks, size).toString('utf8'), truncated };
}
