import { QueueError } from '../errors';

/**
 * The checks every adapter's open and admin make of the URLs they are handed, written once:
 * a driver is opened on a URL that names a queue, and an admin acts only on queues at its own
 * provider, named by their URLs. Messages never quote the URL (it may hold a pasted secret).
 */

/** Refuses a URL that names no queue where a driver is opened: `example` shows the form. */
export function requireQueueName(scheme: string, queueName: string, example: string): void {
  if (!queueName) {
    throw new QueueError('INVALID_ARGUMENT', `${scheme}:// URLs name their queue: ${example}`, {
      details: { field: 'queueName' },
    });
  }
}

export interface QueueLocatorRules<P extends { queueName: string }> {
  scheme: string;
  /** The adapter's own URL reader; its QueueErrors pass through. */
  parse(url: URL): P;
  /** The admin's provider, as `parse` read its URL. */
  provider: P;
  /** Whether a queue's URL points at the admin's provider (same host, region, database...). */
  sameProvider(queue: P, provider: P): boolean;
  /** What the provider is, for the refusal: `Redis`, `region and endpoint`. */
  providerNoun: string;
}

/**
 * The admin's reading of a queue URL: parsed by the adapter's rules, and refused unless it
 * names a queue at the admin's own provider (an admin never acts on another's queues).
 */
export function queueLocator<P extends { queueName: string }>(
  rules: QueueLocatorRules<P>,
): (queue: string) => P {
  return (queue) => {
    let url: URL;
    try {
      url = new URL(queue);
    } catch {
      url = new URL('invalid:');
    }
    if (url.protocol !== `${rules.scheme}:`) {
      throw new QueueError('INVALID_ARGUMENT', `the admin names queues by their ${rules.scheme}:// URL`, {
        details: { field: 'url' },
      });
    }
    const parsed = rules.parse(url);
    if (!parsed.queueName || !rules.sameProvider(parsed, rules.provider)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `that URL names no queue on this admin's ${rules.providerNoun}`,
        {
          details: { field: 'url' },
        },
      );
    }
    return parsed;
  };
}
