import { QueueError } from '@queueport/core/driver';

/** The codes BullMQ's scripts answer when the caller no longer holds the job's lock. */
const LOCK_CODES = new Set([-1, -2, -3, -6]);

/**
 * ioredis words for a connection that is down, where its error carries no socket code (those,
 * ECONNREFUSED and the like, core's normalizeError already reads as UNAVAILABLE).
 */
const CONNECTION_MESSAGES = [
  'Connection is closed',
  'Reached the max retries per request limit',
  "Stream isn't writeable",
  'LOADING',
];

/**
 * Maps BullMQ's and ioredis's failures onto the port's codes. A lost lock is LEASE_LOST, so a
 * stale ack never passes for a success; a connection that is down is UNAVAILABLE, which the
 * Queue retries. Messages are BullMQ's own, which name job ids, never credentials.
 */
export function classifyBullmqError(error: unknown): QueueError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && LOCK_CODES.has(code)) {
    return new QueueError('LEASE_LOST', `bullmq: the lock on this job is gone (${error.message})`);
  }
  if (error.message === 'Command timed out') {
    return new QueueError(
      'UNAVAILABLE',
      'bullmq: Redis did not answer within the command timeout (timeoutMs)',
      {
        retryable: true,
      },
    );
  }
  if (
    error.name === 'MaxRetriesPerRequestError' ||
    CONNECTION_MESSAGES.some((m) => error.message.includes(m))
  ) {
    return new QueueError('UNAVAILABLE', 'bullmq: Redis is unreachable', { retryable: true });
  }
  if (error.message.startsWith('NOAUTH') || error.message.startsWith('WRONGPASS')) {
    return new QueueError('UNAUTHORIZED', 'bullmq: Redis refused the credentials');
  }
  return undefined;
}
