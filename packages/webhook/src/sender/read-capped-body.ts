import type { ResponseSample } from '../sender-types';

/**
 * Reads at most `maxBytes` of a response body, then destroys the stream. A receiver cannot make
 * us buffer an endless answer, and the connection is never left half-read (which would stall
 * the keep-alive pool). A body that breaks off early is reported as truncated, not as an error:
 * the status line already decided the outcome.
 */
export async function readCappedBody(
  body: AsyncIterable<Uint8Array> & {
    destroy(error?: Error): unknown;
    once?(event: 'error', listener: () => void): unknown;
  },
  maxBytes: number,
): Promise<ResponseSample> {
  // A cap that is not a positive whole number reads nothing: it must never lift the cap.
  const cap = Number.isSafeInteger(maxBytes) && maxBytes > 0 ? maxBytes : 0;
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    if (cap === 0) {
      truncated = true;
    } else {
      for await (const chunk of body) {
        const room = cap - size;
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
  // undici's body emits 'error' when destroyed before its end, and with no listener left that
  // event would take the whole process down.
  if (truncated) {
    body.once?.('error', () => {});
    body.destroy();
  }
  return { body: Buffer.concat(chunks, size).toString('utf8'), truncated };
}
