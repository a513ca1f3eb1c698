import { randomUUID } from 'node:crypto';
import type { PublishInput } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { Redis, type RedisOptions } from 'ioredis';
import { bullmqProviderUrl, redisUrl } from './redis';

/** A key prefix no other test file or run shares, so cleanup can delete everything under it. */
export function uniquePrefix(file: string): string {
  return `qp-unit-${file}-${randomUUID().slice(0, 8)}`;
}

export function freshName(tag = 'q'): string {
  return `${tag}-${randomUUID().slice(0, 8)}`;
}

/** A connection to the test Redis with what BullMQ's workers require (`maxRetriesPerRequest: null`). */
export function testRedis(options: RedisOptions = {}): Redis {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: null, ...options });
  redis.on('error', () => {});
  return redis;
}

/** The db the test Redis URL selects (0 when it names none). */
export function testDb(): number {
  const path = new URL(redisUrl()).pathname.slice(1);
  return path ? Number(path) : 0;
}

/** `bullmq://host:port/<name>?…` on the test Redis. */
export function bullmqQueueUrl(name: string, query: Record<string, string | number> = {}): string {
  const url = new URL(bullmqProviderUrl(query));
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.href;
}

/** Every key matching `pattern`, by SCAN (never KEYS, which blocks a shared server). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  const keys = await scanKeys(redis, pattern);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}

/**
 * Polls `check` until it returns something other than undefined, or fails after `timeoutMs`:
 * Redis-side effects (a stalled check, an expiry) have no event to await.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function event(id: string, extra: Omit<PublishInput, 'envelope'> = {}): PublishInput {
  return { envelope: { event_id: id, type: 'test.event', payload: { id } }, ...extra };
}

/** What the Queue would hand the driver, for tests that talk to the driver directly. */
export function outgoing(id: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { eventId: id, dedupeKey: id, body: `{"id":"${id}"}`, attributes: {}, delaySeconds: 0, ...extra };
}
