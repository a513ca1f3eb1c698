import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface ForeignJob {
  /** Fields that replace (or add to) those of a well-formed job hash. */
  fields?: Record<string, string>;
  /** Store the job's key as this Redis type instead of a hash. */
  type?: 'hash' | 'string' | 'list' | 'set' | 'zset';
}

/**
 * Writes a job the way BullMQ's addStandardJob script does (its hash at `<prefix>:<queue>:<id>`,
 * its id pushed onto the wait list, the marker set so waiting workers wake), with raw commands,
 * so a test controls every byte BullMQ would read back. Returns the job's id.
 */
export async function writeForeignJob(
  redis: Redis,
  queueKey: string,
  { fields = {}, type = 'hash' }: ForeignJob = {},
): Promise<string> {
  const id = `foreign-${randomUUID().slice(0, 8)}`;
  const jobKey = `${queueKey}:${id}`;
  const hash: Record<string, string> = {
    name: 'foreign',
    data: '{"foo":1}',
    opts: '{"attempts":1}',
    timestamp: String(Date.now()),
    delay: '0',
    priority: '0',
    ...fields,
  };
  const flat = Object.entries(hash).flat();
  const write = redis.multi();
  switch (type) {
    case 'hash':
      write.hset(jobKey, hash);
      break;
    case 'string':
      write.set(jobKey, JSON.stringify(hash));
      break;
    case 'list':
      write.rpush(jobKey, ...flat);
      break;
    case 'set':
      write.sadd(jobKey, ...flat);
      break;
    case 'zset':
      write.zadd(jobKey, ...flat.flatMap((member, index) => [index, member]));
      break;
  }
  write.lpush(`${queueKey}:wait`, id);
  write.zadd(`${queueKey}:marker`, 0, '0');
  await write.exec();
  return id;
}
