/**
 * queueport's own key beside BullMQ's: BullMQ queues exist implicitly, so this is what says a
 * queue was opened or created and not deleted since. Deleting the queue removes it.
 */
export function existenceKey(prefix: string, queueName: string): string {
  return `${prefix}:${queueName}:queueport`;
}

/** The queue's redrive count (`redriveAfterReceives`), as the admin's createQueue set it. */
export function redriveKey(prefix: string, queueName: string): string {
  return `${prefix}:${queueName}:queueport:redrive`;
}

/** A SCAN pattern for every key of one queue: BullMQ's and queueport's share the `<prefix>:<name>:` start. */
export function queueKeysPattern(prefix: string, queueName: string): string {
  // Names may hold glob characters; escaped, they match only themselves.
  const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
  return `${literal(prefix)}:${literal(queueName)}:*`;
}
