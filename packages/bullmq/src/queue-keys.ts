/**
 * queueport's own key beside BullMQ's: BullMQ queues exist implicitly, so this is what says a
 * queue was opened or created and not deleted since. Deleting the queue removes it.
 */
export function existenceKey(prefix: string, queueName: string): string {
  return `${prefix}:${queueName}:queueport`;
}
