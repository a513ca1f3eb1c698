import type { BatchLimits } from '../capabilities';
import type { OutgoingMessage } from '../driver';
import { messageSizeBytes } from './message-checks';

/**
 * The publish calls a list of messages goes out in, in order: at most `batch.publish` messages
 * each, and where the manifest declares `batch.publishBytes`, at most that many bytes together,
 * each message counted as `maxBodyBytes` counts it (encoded envelope plus attribute names and
 * values, the bridge's included). A message larger than the byte bound on its own goes alone.
 */
export function publishChunks(
  messages: readonly OutgoingMessage[],
  batch: Pick<BatchLimits, 'publish' | 'publishBytes'>,
): OutgoingMessage[][] {
  const { publish: count, publishBytes } = batch;
  const chunks: OutgoingMessage[][] = [];
  if (publishBytes === undefined) {
    for (let start = 0; start < messages.length; start += count) {
      chunks.push(messages.slice(start, start + count));
    }
    return chunks;
  }
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = messageSizeBytes(message.body, message.attributes);
    if (current.length > 0 && (current.length === count || bytes + size > publishBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
