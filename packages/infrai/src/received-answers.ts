import { QueueError } from '@queueport/core/driver';
import type { QueueConsumeResponse } from './generated/queue-types';

type ConsumedMessage = QueueConsumeResponse['messages'][number];

/** Receipts and ids are the server's: bounded, printable, so one never carries a log line or a megabyte. */
const RECEIPT_MAX = 8192;
export const MESSAGE_ID_MAX = 256;
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * The messages of a consume answer, each field checked here whatever the snapshot in use says
 * (a caller may pass its own): a receipt and an id that are non-empty printable strings of a
 * bounded length, a receive count that is a whole number of at least 1, a payload that is an
 * object. One bad field fails the whole answer, naming the field and the message's position,
 * never its value: nothing of it becomes a receipt or a count.
 */
export function receivedMessages(answer: unknown, name: string): ConsumedMessage[] {
  const messages = (answer as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) throw malformed(name, 'messages', 'is not a list');
  messages.forEach((message: unknown, index) => {
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      throw malformed(name, `messages[${index}]`, 'is not an object');
    }
    const m = message as Record<string, unknown>;
    if (!boundedText(m.receipt_handle, RECEIPT_MAX)) {
      throw malformed(
        name,
        `messages[${index}].receipt_handle`,
        `is not printable text of 1-${RECEIPT_MAX} characters`,
      );
    }
    if (!boundedText(m.message_id, MESSAGE_ID_MAX)) {
      throw malformed(
        name,
        `messages[${index}].message_id`,
        `is not printable text of 1-${MESSAGE_ID_MAX} characters`,
      );
    }
    const count = m.delivery_count;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
      throw malformed(name, `messages[${index}].delivery_count`, 'is not a whole number of at least 1');
    }
    if (!m.payload || typeof m.payload !== 'object' || Array.isArray(m.payload)) {
      throw malformed(name, `messages[${index}].payload`, 'is not an object');
    }
  });
  return messages as ConsumedMessage[];
}

/**
 * Only an explicit `true` confirms a settle: `false`, a missing field or another type means
 * Infrai did not do it, and the receipt is as good as lost (the message comes back when its
 * visibility timeout ends). A nack is done when the message is requeued or, past its queue's
 * `max_retries`, dead-lettered.
 */
export function confirmSettle(answer: unknown, operation: 'ack' | 'nack', name: string): void {
  const data = (answer ?? {}) as { acknowledged?: unknown; requeued?: unknown; dead_lettered?: unknown };
  const field = operation === 'ack' ? 'acknowledged' : 'requeued';
  if (
    operation === 'ack' ? data.acknowledged === true : data.requeued === true || data.dead_lettered === true
  ) {
    return;
  }
  const said = data[field];
  throw new QueueError(
    'LEASE_LOST',
    `${name} queue.${operation}: Infrai did not confirm it (${field}: ${said === false ? 'false' : 'missing or not a boolean'}); the message comes back when its visibility timeout ends`,
    { retryable: false, details: { field, confirmed: false } },
  );
}

export function boundedText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length <= max && PRINTABLE.test(value);
}

function malformed(name: string, field: string, what: string): QueueError {
  return new QueueError('INTERNAL', `${name} queue.consume: Infrai's answer is malformed: ${field} ${what}`, {
    retryable: false,
    details: { capability: 'queue.consume', field },
  });
}
