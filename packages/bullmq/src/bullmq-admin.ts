import type { CreateQueueRequest, DeadLetterRecord, QueueAdmin, QueueStats } from '@queueport/core';
import { DEFAULT_REDRIVE_AFTER_RECEIVES, QueueError } from '@queueport/core/driver';
import { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeConnection } from './close-connection';
import { type DecodedJobData, decodeJobData } from './job-data';
import { existenceKey, queueKeysPattern, redriveKey } from './queue-keys';

const HELD_STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;

export interface BullmqAdminTarget {
  /** Parses a queue's URL into its name and key prefix; refuses URLs of another Redis. */
  locate(url: string): { queueName: string; prefix: string };
  /** The URL that opens `queueName` on this Redis. */
  urlOf(queueName: string): string;
  prefix: string;
  /** Resolves once the connection is usable, or rejects naming why not (refused, TLS, timeout). */
  ready(): Promise<void>;
}

/**
 * BullMQ's administration through its Queue class. There is nothing to create in Redis, so
 * `createQueue` checks the connection and marks the queue as existing; deleting obliterates it.
 * Failed jobs are the dead letters.
 */
export function bullmqAdmin(
  connection: Redis,
  target: BullmqAdminTarget,
  ownsConnection: boolean,
): QueueAdmin {
  const queues = new Map<string, Queue>();
  const queueOf = (url: string): { queue: Queue; prefix: string } => {
    const { queueName, prefix } = target.locate(url);
    const key = `${prefix}:${queueName}`;
    let queue = queues.get(key);
    if (!queue) {
      queue = new Queue(queueName, { connection, prefix });
      queue.on('error', () => {});
      queues.set(key, queue);
    }
    return { queue, prefix };
  };
  const queueKey = (url: string): string => {
    const { queueName, prefix } = target.locate(url);
    return `${prefix}:${queueName}`;
  };
  const existing = async (url: string) => {
    await target.ready();
    const found = queueOf(url);
    if ((await connection.exists(existenceKey(found.prefix, found.queue.name))) !== 1) {
      throw new QueueError('NOT_FOUND', `no BullMQ queue ${found.queue.name} was created here`);
    }
    return found.queue;
  };
  return {
    async createQueue(request: CreateQueueRequest): Promise<string> {
      // The same default as every admin's, so portable code never depends on one provider's.
      const redrive = request.redriveAfterReceives ?? DEFAULT_REDRIVE_AFTER_RECEIVES;
      if (!Number.isSafeInteger(redrive) || redrive < 1) {
        throw new QueueError('INVALID_ARGUMENT', 'redriveAfterReceives must be a whole number from 1', {
          details: { field: 'redriveAfterReceives' },
        });
      }
      const settings = Object.keys(request.settings ?? {});
      if (settings.length > 0) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          `BullMQ queues take no settings (got ${settings.join(', ')})`,
          {
            details: { field: 'settings' },
          },
        );
      }
      await target.ready();
      const url = target.urlOf(request.name);
      const { queue, prefix } = queueOf(url);
      await connection.ping();
      await connection
        .multi()
        .set(redriveKey(prefix, queue.name), String(redrive))
        .set(existenceKey(prefix, queue.name), String(Date.now()))
        .exec();
      return url;
    },
    async deleteQueue(url) {
      const queue = await existing(url);
      await queue.obliterate({ force: true });
      const { prefix } = queueOf(url);
      // The existence key first, so that open drivers stop their stall checks (which would write
      // the meta key back), then every key left under the queue's name, BullMQ's and ours.
      await connection.del(existenceKey(prefix, queue.name));
      await deleteMatching(connection, queueKeysPattern(prefix, queue.name));
    },
    async stats(url): Promise<QueueStats> {
      const queue = await existing(url);
      const counts = await queue.getJobCounts(...HELD_STATES, 'failed');
      const depth = HELD_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
      return { depth, oldestReadyAgeSeconds: await oldestReadyAge(queue), deadLetters: counts.failed ?? 0 };
    },
    async listDeadLetters(url, { limit }) {
      await existing(url);
      const key = queueKey(url);
      // Read raw, not through BullMQ's getJobs: one dead letter it cannot parse (a foreign job
      // the driver moved there) would fail the whole list.
      const ids = await connection.zrange(`${key}:failed`, 0, limit - 1);
      const records = await Promise.all(ids.map((id) => readDeadLetter(connection, key, id)));
      return records.filter((record): record is DeadLetterRecord => record !== undefined);
    },
    async redriveDeadLetters(url, { limit }) {
      const queue = await existing(url);
      const ids = await connection.zrange(`${queueKey(url)}:failed`, 0, limit - 1);
      let moved = 0;
      for (const id of ids) {
        // A job BullMQ cannot read stays among the dead letters: back in the queue it would only
        // be dead-lettered again.
        const job = await Job.fromId(queue, id).catch(() => undefined);
        if (!job) continue;
        await job.retry('failed');
        moved++;
      }
      return moved;
    },
    async purge(url) {
      const queue = await existing(url);
      await queue.drain(true);
      await queue.clean(0, Number.MAX_SAFE_INTEGER, 'active');
    },
    async close() {
      await Promise.allSettled([...queues.values()].map((queue) => queue.close()));
      queues.clear();
      if (ownsConnection) await closeConnection(connection);
    },
  };
}

/** Deletes every key matching `pattern`, by SCAN (never KEYS, which blocks a shared server). */
async function deleteMatching(connection: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await connection.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await connection.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** The oldest job that could be taken now: the tail of the wait list, which BullMQ takes from. */
async function oldestReadyAge(queue: Queue): Promise<number | null> {
  const [oldest] = await queue.getJobs(['wait'], -1, -1);
  if (!oldest) return null;
  const readySince = oldest.timestamp + (oldest.delay ?? 0);
  return Math.max(0, (Date.now() - readySince) / 1000);
}

/** One dead letter from its raw hash, every field checked; undefined when its key is no job. */
async function readDeadLetter(
  connection: Redis,
  queueKey: string,
  id: string,
): Promise<DeadLetterRecord | undefined> {
  const fields = await connection.hgetall(`${queueKey}:${id}`).catch(() => undefined);
  if (!fields || Object.keys(fields).length === 0) return undefined;
  let decoded: DecodedJobData = { ok: false, reason: 'its data is not JSON' };
  try {
    decoded = decodeJobData(JSON.parse(fields.data ?? '{}'));
  } catch {
    // Shown without a body: the reason says why it is here.
  }
  const { body, attributes } = decoded.ok ? decoded : { body: '', attributes: {} };
  const count = /^[0-9]{1,15}$/.test(fields.ats ?? '') ? Number(fields.ats) : 0;
  const at = /^[0-9]{1,15}$/.test(fields.finishedOn ?? '') ? Number(fields.finishedOn) : undefined;
  return {
    messageId: id,
    eventId: fields.name ?? '',
    body,
    attributes,
    receiveCount: count,
    reason: fields.failedReason,
    at,
  };
}
