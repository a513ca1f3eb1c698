import { QueueError } from '@queueport/core/driver';
import type { ResponseOf } from './generated/queue-types';

type ConsumedMessage = ResponseOf<'queue.consume'>['messages'][number];

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
export function receivedMessages(answer: ResponseOf<'queue.consume'>, name: string): ConsumedMessage[] {
  // Each field read at its generated type: one the snapshot renames or drops is a compile error
  // here. The checks below stay, for what the types cannot promise.
  const messages: ConsumedMessage[] = answer?.messages;
  if (!Array.isArray(messages)) throw malformed(name, 'messages', 'is not a list');
  messages.forEach((message: unknown, index) => {
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      throw malformed(name, `messages[${index}]`, 'is not an object');
    }
    const m = message as ConsumedMessage;
    const receipt: string = m.receipt_handle;
    const id: string = m.message_id;
    const count: number = m.delivery_count;
    const payload: ConsumedMessage['payload'] = m.payload;
    if (!boundedText(receipt, RECEIPT_MAX)) {
      throw malformed(
        name,
        `messages[${index}].receipt_handle`,
        `is not printable text of 1-${RECEIPT_MAX} characters`,
      );
    }
    if (!boundedText(id, MESSAGE_ID_MAX)) {
      throw malformed(
        name,
        `messages[${index}].message_id`,
        `is not printable text of 1-${MESSAGE_ID_MAX} characters`,
      );
    }
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
      throw malformed(name, `messages[${index}].delivery_count`, 'is not a whole number of at least 1');
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
      throw malformed(name, `messages[${index}].payload`, 'is not an object');
    }
  });
  return messages;
}

type SettleCapability = 'queue.ack' | 'queue.nack';

interface SettleConfirmation {
  /** The field a refusal names. */
  field: string;
  said: unknown;
  done: boolean;
}

/**
 * What each settle answer says, read at the generated types: a field the snapshot renames or
 * drops is a compile error here, not a settle that silently never confirms.
 */
const CONFIRMATIONS: { [K in SettleCapability]: (answer: ResponseOf<K>) => SettleConfirmation } = {
  'queue.ack': (answer) => {
    const acknowledged: boolean = answer.acknowledged;
    return { field: 'acknowledged', said: acknowledged, done: acknowledged === true };
  },
  'queue.nack': (answer) => {
    const requeued: boolean = answer.requeued;
    const deadLettered: boolean | undefined = answer.dead_lettered;
    return { field: 'requeued', said: requeued, done: requeued === true || deadLettered === true };
  },
};

/**
 * Only an explicit `true` confirms a settle: `false`, a missing field or another type (a
 * caller's own snapshot may declare another) means Infrai did not do it, and the receipt is as
 * good as lost (the message comes back when its visibility timeout ends). A nack is done when
 * the message is requeued or, past its queue's `max_retries`, dead-lettered.
 */
export function confirmSettle<K extends SettleCapability>(
  answer: ResponseOf<K>,
  capability: K,
  name: string,
): void {
  const { field, said, done } = CONFIRMATIONS[capability]((answer ?? {}) as ResponseOf<K>);
  if (done) return;
  throw new QueueError(
    'LEASE_LOST',
    `${name} ${capability}: Infrai did not confirm it (${field}: ${said === false ? 'false' : 'missing or not a boolean'}); the message comes back when its visibility timeout ends`,
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
