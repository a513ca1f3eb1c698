import { QueueError } from '../../errors';

/**
 * Queue names in URLs are percent-encoded, one way for every adapter: `encodeURIComponent` when
 * a URL is made, `decodeURIComponent` when one is read, so any name round-trips (`orders eu/west`
 * is `orders%20eu%2Fwest`). What a provider accepts as a name is its own rule, checked on the
 * decoded name.
 */
export function encodeQueueName(name: string): string {
  return encodeURIComponent(name);
}

/** The decoded name; a malformed escape (`%E0%A4%A`) is refused, never thrown as a URIError. */
export function decodeQueueName(scheme: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `the queue name has a malformed %-escape (${scheme}:// queue names are percent-encoded)`,
      { details: { field: 'queueName' } },
    );
  }
}
