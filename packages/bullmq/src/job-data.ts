import type { OutgoingMessage } from '@queueport/core/driver';

/** A job's data: the encoded envelope as it was published, and the attributes when there are any. */
export interface JobData {
  b: string;
  a?: Record<string, string>;
}

export function encodeJobData(message: OutgoingMessage): JobData {
  return Object.keys(message.attributes).length > 0
    ? { b: message.body, a: { ...message.attributes } }
    : { b: message.body };
}

/**
 * A job someone else added (not through queueport) has other data: it is handed on as its JSON,
 * which the Queue refuses as an envelope and dead-letters, instead of crashing the receive.
 */
export function decodeJobData(data: unknown): { body: string; attributes: Record<string, string> } {
  if (data !== null && typeof data === 'object' && typeof (data as JobData).b === 'string') {
    const { b, a } = data as JobData;
    // Freshly parsed from Redis for this delivery alone: nothing else holds it, so no copy.
    return { body: b, attributes: a !== null && typeof a === 'object' ? a : {} };
  }
  return { body: JSON.stringify(data) ?? 'null', attributes: {} };
}
