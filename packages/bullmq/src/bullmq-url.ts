import { QueueError, unknownOptionError } from '@queueport/core/driver';
import type { RedisOptions } from 'ioredis';
import type { BullmqDriverOptions } from './bullmq-options';
import { DEFAULT_TIMEOUT_MS } from './redis-connection';

type UrlDriverOptions = Omit<BullmqDriverOptions, 'connection' | 'queueName' | 'name'>;

export interface ParsedBullmqUrl {
  /** Empty for a provider URL (the admin's), which names no queue. */
  queueName: string;
  redis: RedisOptions;
  options: UrlDriverOptions;
  /** How long the connect, and each Redis command, may take (`timeoutMs=`, default 10 s). */
  timeoutMs: number;
}

/** Below this a healthy Redis on another host can miss it; above it a hang goes unnoticed too long. */
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 600_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const NUMBER_OPTIONS = [
  'dedupeWindowSeconds',
  'keepCompletedSeconds',
  'keepFailedSeconds',
  'stalledIntervalMs',
  'maxBodyBytes',
] as const;

/** Every option a bullmq:// URL takes, for the refusal of one it does not. */
const OPTIONS = ['db', 'prefix', 'tls', 'username', 'passwordEnv', 'timeoutMs', ...NUMBER_OPTIONS] as const;

/**
 * `bullmq://host:port/orders?db=0&prefix=bull&tls=true&passwordEnv=REDIS_PASSWORD&timeoutMs=10000`: where Redis
 * is, the queue's name as the path, and the driver's options as the query. The password is read
 * from the environment variable that `passwordEnv` names, never from the URL, so a URL can be
 * logged. Unknown options are refused by name, so a typo never silently means the default.
 */
export function parseBullmqUrl(url: URL, env: Readonly<Record<string, string | undefined>>): ParsedBullmqUrl {
  if (url.username || url.password) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'bullmq:// URLs carry no credentials: give username= and name an environment variable with passwordEnv=',
      { details: { field: url.password ? 'password' : 'username' } },
    );
  }
  const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  if (segments.length > 1) {
    throw new QueueError('INVALID_ARGUMENT', 'a bullmq:// URL names one queue: bullmq://host:port/orders', {
      details: { field: 'queueName' },
    });
  }
  const queueName = segments[0] ?? '';
  if (queueName.includes(':')) {
    throw new QueueError('INVALID_ARGUMENT', 'a BullMQ queue name may not contain ":"', {
      details: { field: 'queueName' },
    });
  }
  const redis: RedisOptions = {
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: url.port ? Number(url.port) : 6379,
    // Commands wait through a Redis restart instead of failing, as BullMQ's workers need.
    maxRetriesPerRequest: null,
  };
  const options: UrlDriverOptions = {};
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  for (const [key, value] of url.searchParams) {
    switch (key) {
      case 'db':
        redis.db = integer(key, value);
        break;
      case 'prefix':
        options.prefix = value;
        break;
      case 'tls':
        if (value !== 'true' && value !== 'false') throw bad(key, 'true or false');
        if (value === 'true') redis.tls = { servername: redis.host! };
        break;
      case 'timeoutMs':
        timeoutMs = integer(key, value);
        if (timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
          throw bad(key, `a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`);
        }
        break;
      case 'username':
        redis.username = value;
        break;
      case 'passwordEnv': {
        // Named only when it looks like a variable's name: someone may paste the password itself.
        const named = ENV_NAME.test(value) ? ` ${value},` : ' a variable that';
        const password = ENV_NAME.test(value) ? env[value] : undefined;
        if (password === undefined || password === '') {
          throw new QueueError(
            'INVALID_ARGUMENT',
            `bullmq:// passwordEnv names${named} which is not set (it takes an environment variable's name)`,
            { details: { field: 'passwordEnv' } },
          );
        }
        redis.password = password;
        break;
      }
      default:
        if ((NUMBER_OPTIONS as readonly string[]).includes(key)) {
          options[key as (typeof NUMBER_OPTIONS)[number]] = integer(key, value);
          break;
        }
        throw unknownOption(key);
    }
  }
  return { queueName, redis, options, timeoutMs };
}

/** The URL of a queue on the same Redis, with the same options. */
export function queueUrl(provider: URL, queueName: string): string {
  const url = new URL(provider.href);
  url.pathname = `/${encodeURIComponent(queueName)}`;
  return url.href;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'a bullmq:// queue name has a malformed %-escape', {
      details: { field: 'queueName' },
    });
  }
}

function integer(key: string, value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) throw bad(key, 'a whole number');
  return n;
}

/** The value is never echoed: it may be a secret pasted into the wrong option. */
function bad(key: string, expected: string): QueueError {
  return new QueueError('INVALID_ARGUMENT', `bullmq:// option ${key} is invalid: expected ${expected}`, {
    details: { field: key },
  });
}

/** Names the option only as a near miss of a real one: any other name may be a pasted secret. */
function unknownOption(key: string): QueueError {
  return unknownOptionError('bullmq', key, OPTIONS);
}
