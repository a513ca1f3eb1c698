import type { QueueListResponse } from './generated/queue-types';
import type { QueueFacts } from './infrai-options';

/** One queue's settings from `queue.list`, or undefined where Infrai has no such queue. */
export function queueFactsOf(listed: QueueListResponse, name: string): QueueFacts | undefined {
  const queue = listed.queues.find((q) => q.name === name);
  if (!queue) return undefined;
  return {
    name: queue.name,
    type: queue.type,
    deadLetterQueue: queue.dead_letter_queue ?? null,
    maxRetries: queue.max_retries,
    retentionSeconds: queue.message_retention_days * 86_400,
  };
}
