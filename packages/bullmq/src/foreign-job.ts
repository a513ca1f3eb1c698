import type { Redis } from 'ioredis';
import { checkReceiveCount, decodeJobData } from './job-data';

/**
 * How far down the active list a job this driver just locked is looked for. BullMQ pushes a job
 * it takes onto the head of the list, so only the takes that ran after ours lie before it.
 */
const ACTIVE_SEARCH_DEPTH = 500;
/** Data past this is no envelope any Queue would take: refused before it is parsed. */
const MAX_DATA_CHARS = 32 * 1024 * 1024;
/** BullMQ trims its event stream to about this many entries by default. */
const EVENTS_MAX_LEN = 10_000;

/**
 * Finds the job whose lock holds `token` near the head of the active list: BullMQ's take script
 * moves and locks a job before it reads it, so when the reading fails (in Lua on a key of the
 * wrong type, in JavaScript on fields that are not JSON) the job is there, locked for us, and
 * nothing else names it. `except`: a job that must not be taken for it (the one an ack settles).
 */
export async function findLockedBy(
  client: Redis,
  queueKey: string,
  token: string,
  except?: string,
): Promise<string | undefined> {
  const ids = await client.lrange(`${queueKey}:active`, 0, ACTIVE_SEARCH_DEPTH - 1);
  if (ids.length === 0) return undefined;
  const locks = await client.mget(...ids.map((id) => `${queueKey}:${id}:lock`));
  return ids.find((id, index) => locks[index] === token && id !== except);
}

/**
 * Reads a job's hash itself, for a job BullMQ could not read, and says why it cannot be
 * delivered: every field checked, nothing of what it carries put into the reason.
 */
export async function diagnoseForeignJob(
  client: Redis,
  queueKey: string,
  jobId: string,
): Promise<{ reason: string; receiveCount: number }> {
  const jobKey = `${queueKey}:${jobId}`;
  const type = await client.type(jobKey);
  if (type !== 'hash')
    return { reason: `its key holds a Redis ${safeType(type)}, not a hash`, receiveCount: 1 };
  const fields = await client.hgetall(jobKey);
  const count = /^[0-9]{1,16}$/.test(fields.ats ?? '') ? checkReceiveCount(Number(fields.ats)) : undefined;
  if (typeof count !== 'number')
    return { reason: 'its start count (ats) is not a whole number from 1', receiveCount: 1 };
  const problem = (reason: string) => ({ reason, receiveCount: count });
  if (!parsesAsJson(fields.opts ?? '{}')) return problem('its opts are not JSON');
  const data = fields.data ?? '{}';
  if (data.length > MAX_DATA_CHARS) return problem('its data is too large');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return problem('its data is not JSON');
  }
  const decoded = decodeJobData(parsed);
  // BullMQ failed on some other field of this job (its progress, its parent).
  return problem(decoded.ok ? 'BullMQ could not read its fields' : decoded.reason);
}

/**
 * Moves a job this driver holds the lock on to the failed set (the dead letters) without
 * BullMQ's scripts, which read the job's fields and fail on exactly the jobs that need this.
 * A key of another type is kept beside the job as `<job key>:foreign`, and a hash in its place
 * carries the reason, so the dead letter lists with the others. -1 when the lock is another's.
 * A job with no lock at all that is still active is taken too: BullMQ's own move may have got
 * as far as dropping the lock before the job's fields failed it.
 */
const QUARANTINE = `
local lock = redis.call('GET', KEYS[4])
if lock and lock ~= ARGV[1] then return -1 end
local removed = redis.call('LREM', KEYS[1], -1, ARGV[2])
if not lock and removed == 0 then return -1 end
redis.call('SREM', KEYS[6], ARGV[2])
redis.call('DEL', KEYS[4])
local kind = redis.call('TYPE', KEYS[3])['ok']
if kind ~= 'hash' and kind ~= 'none' then redis.call('RENAME', KEYS[3], KEYS[7]) end
redis.call('HSET', KEYS[3], 'failedReason', ARGV[3], 'finishedOn', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[5], '*', 'event', 'failed', 'jobId', ARGV[2], 'failedReason', ARGV[3], 'prev', 'active')
return 1`;

export async function quarantineJob(
  client: Redis,
  queueKey: string,
  jobId: string,
  token: string,
  reason: string,
): Promise<boolean> {
  const jobKey = `${queueKey}:${jobId}`;
  const keys = [
    `${queueKey}:active`,
    `${queueKey}:failed`,
    jobKey,
    `${jobKey}:lock`,
    `${queueKey}:events`,
    `${queueKey}:stalled`,
    `${jobKey}:foreign`,
  ];
  const moved = await client.eval(
    QUARANTINE,
    keys.length,
    ...keys,
    token,
    jobId,
    reason,
    Date.now(),
    EVENTS_MAX_LEN,
  );
  return moved === 1;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Redis names its types with a few known words; anything else is not repeated. */
function safeType(type: string): string {
  return /^[a-z]{1,12}$/.test(type) ? type : 'value of another type';
}
