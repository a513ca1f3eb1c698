/**
 * Where the test Redis is: the one `pnpm test` found or started (QUEUEPORT_REDIS_URL), as a
 * bullmq:// provider URL with the given options. Every test queue gets its own key prefix, so a
 * run never reads another's keys.
 */
export function bullmqProviderUrl(query: Record<string, string | number> = {}): string {
  const redis = new URL(process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const url = new URL(`bullmq://${redis.host}`);
  if (redis.pathname.length > 1) url.searchParams.set('db', redis.pathname.slice(1));
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return url.href;
}

export function redisUrl(): string {
  return process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379';
}
