import { defineUrlGrammar, readEnv, urlOption } from '@queueport/core/driver';
import type { RedisOptions } from 'ioredis';
import { BULLMQ_OPTION_BOUNDS as BOUNDS, type BullmqDriverOptions } from './bullmq-options';

/**
 * How long a connect, and each Redis command, may take unless the URL says `timeoutMs=`. Here,
 * not beside the connection, so the adapter's definition reads without ioredis installed.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

type UrlDriverOptions = Omit<BullmqDriverOptions, 'connection' | 'queueName' | 'name'>;

export interface ParsedBullmqUrl {
  /** Empty for a provider URL (the admin's), which names no queue. */
  queueName: string;
  redis: RedisOptions;
  options: UrlDriverOptions;
  /** How long the connect, and each Redis command, may take (`timeoutMs=`, default 10 s). */
  timeoutMs: number;
}

/**
 * `bullmq://host:port/orders?db=0&prefix=bull&tls=true&passwordEnv=REDIS_PASSWORD&timeoutMs=10000`: where Redis
 * is, the queue's name as the path, and the driver's options as the query. The password is read
 * from the environment variable that `passwordEnv` names, never from the URL, so a URL can be
 * logged. The adapter's `urls`.
 */
export const bullmqUrls = defineUrlGrammar({
  scheme: 'bullmq',
  queueName: 'path',
  example: 'bullmq://host:port/orders',
  queueNameRule: {
    accepts: (name) => !name.includes(':'),
    refusal: 'a BullMQ queue name may not contain ":"',
  },
  credentials: 'give username= and name an environment variable with passwordEnv=',
  options: {
    db: urlOption.integer({ min: 0 }),
    prefix: urlOption.string(),
    tls: urlOption.boolean({ default: false }),
    username: urlOption.string(),
    passwordEnv: urlOption.environmentVariable(),
    // Below 100 ms a healthy Redis on another host can miss it; past 10 minutes a hang goes unnoticed.
    timeoutMs: urlOption.milliseconds({ min: 100, max: 600_000, default: DEFAULT_TIMEOUT_MS }),
    dedupeWindowSeconds: urlOption.seconds(BOUNDS.dedupeWindowSeconds),
    keepCompletedSeconds: urlOption.seconds(BOUNDS.keepCompletedSeconds),
    keepFailedSeconds: urlOption.seconds(BOUNDS.keepFailedSeconds),
    stalledIntervalMs: urlOption.milliseconds(BOUNDS.stalledIntervalMs),
    maxBodyBytes: urlOption.integer(BOUNDS.maxBodyBytes),
  },
});

/**
 * A bullmq:// URL as ioredis and the driver take it; the password from `env` (never
 * process.env unless that is what is passed).
 */
export function parseBullmqUrl(url: URL, env: Readonly<Record<string, string | undefined>>): ParsedBullmqUrl {
  const { queueName, options } = bullmqUrls.read(url);
  const { db, prefix, tls, username, passwordEnv, timeoutMs, ...numbers } = options;
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const redis: RedisOptions = {
    host,
    port: url.port ? Number(url.port) : 6379,
    // Commands wait through a Redis restart instead of failing, as BullMQ's workers need.
    maxRetriesPerRequest: null,
    ...(db === undefined ? {} : { db }),
    // The certificate is checked against the host the URL names, not whatever it resolves to.
    ...(tls ? { tls: { servername: host } } : {}),
    ...(username === undefined ? {} : { username }),
    ...(passwordEnv === undefined
      ? {}
      : { password: readEnv(passwordEnv, env, { scheme: 'bullmq', option: 'passwordEnv' }) }),
  };
  const driverOptions: UrlDriverOptions = prefix === undefined ? {} : { prefix };
  for (const [key, value] of Object.entries(numbers)) {
    if (value !== undefined) driverOptions[key as keyof typeof numbers] = value;
  }
  return { queueName, redis, options: driverOptions, timeoutMs };
}

/** The URL of a queue on the same Redis, with the same options. */
export function queueUrl(provider: URL, queueName: string): string {
  return bullmqUrls.queueUrl(provider, queueName);
}
