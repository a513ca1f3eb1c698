import type { Capabilities } from '@queueport/core/driver';
import type { QueueFacts } from './queue-facts';
import { bodyCapacity, SQS_BATCH } from './sqs-options';

/**
 * SQS bounds a SendMessageBatch's total (every message's body and attributes, as SQS counts
 * them) by the queue's largest message. The Queue counts a message without what SQS adds to it
 * (each attribute's data type, an empty value's byte, the driver's FIFO attribute), which is at
 * most the room `bodyCapacity` keeps per message; a full batch's worth of it comes off the
 * limit, so a call the Queue chunks never passes what SQS accepts.
 */
export function sqsPublishBytes(facts: QueueFacts): number {
  const perMessageOverhead = facts.maxMessageBytes - bodyCapacity(facts);
  return Math.max(1, facts.maxMessageBytes - SQS_BATCH * perMessageOverhead);
}

/** The manifest with the byte bound of a publish call, which the Queue chunks by. */
export function withPublishBytes(capabilities: Capabilities, facts: QueueFacts): Capabilities {
  return { ...capabilities, batch: { ...capabilities.batch, publishBytes: sqsPublishBytes(facts) } };
}
