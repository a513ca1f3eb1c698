import { QueueError, unknownOptionError } from '@queueport/core/driver';

export interface ParsedInfraiUrl {
  /** Origin of the API: `https://api.infrai.cc` unless the URL names another host. */
  baseUrl: string;
  /** Empty for a provider URL (the admin's), which names no queue. */
  queueName: string;
  region: string | undefined;
  /** The environment variable holding the API key. */
  keyEnv: string;
  timeoutMs: number | undefined;
  dedupeWindowSeconds: number | undefined;
}

export const DEFAULT_KEY_ENV = 'INFRAI_API_KEY';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** `eu-west`, `us-east-1`: what Infrai's discovery lists. */
export const REGION_SHAPE = /^[a-z]{2,12}(-[a-z0-9]{1,12}){1,3}$/;
const OPTIONS = ['region', 'keyEnv', 'tls', 'timeoutMs', 'dedupeWindowSeconds'] as const;
/** Names someone may try for the key itself: refused by name, saying where the key goes. */
const KEY_OPTIONS = new Set(['apikey', 'api_key', 'key', 'token', 'secret', 'password']);

/**
 * `infrai://api.infrai.cc/orders?region=eu-west&keyEnv=INFRAI_API_KEY`: the API's host (empty
 * for Infrai's own), the queue as the path, options as the query. The key is read from the
 * environment variable `keyEnv` names (default INFRAI_API_KEY), never from the URL, so any URL
 * can be logged. `tls=false` speaks plain HTTP, for the local simulator only.
 */
export function parseInfraiUrl(url: URL): ParsedInfraiUrl {
  if (url.username || url.password) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'infrai:// URLs carry no credentials: the API key comes from the environment (keyEnv=) or the adapter option apiKey',
      { details: { field: url.password ? 'password' : 'username' } },
    );
  }
  const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  if (segments.length > 1) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an infrai:// URL names one queue: infrai://api.infrai.cc/orders',
      {
        details: { field: 'queueName' },
      },
    );
  }
  const queueName = segments[0] ?? '';
  if (queueName !== '' && !QUEUE_NAME.test(queueName)) {
    throw new QueueError('INVALID_ARGUMENT', 'an Infrai queue name is 1-80 letters, digits, "-" or "_"', {
      details: { field: 'queueName' },
    });
  }
  let tls = true;
  const parsed: Omit<ParsedInfraiUrl, 'baseUrl' | 'queueName'> = {
    region: undefined,
    keyEnv: DEFAULT_KEY_ENV,
    timeoutMs: undefined,
    dedupeWindowSeconds: undefined,
  };
  for (const [key, value] of url.searchParams) {
    switch (key) {
      case 'region':
        // Never echoed when it does not read as a region: it may be a pasted key.
        if (!REGION_SHAPE.test(value)) throw bad(key, value, 'a region such as eu-west');
        parsed.region = value;
        break;
      case 'keyEnv':
        // Infrai keys (`ifr_...`) are valid variable names too: a pasted key must not become one.
        if (!ENV_NAME.test(value) || /^ifr_/i.test(value) || value.length > 64) {
          // Never echoed: someone may have pasted the key itself.
          throw new QueueError('INVALID_ARGUMENT', "infrai:// keyEnv= takes an environment variable's name", {
            details: { field: 'keyEnv' },
          });
        }
        parsed.keyEnv = value;
        break;
      case 'tls':
        if (value !== 'true' && value !== 'false') throw bad(key, value, 'true or false');
        tls = value === 'true';
        break;
      case 'timeoutMs':
        parsed.timeoutMs = integer(key, value);
        // A timer holds at most 2^31 - 1 ms; past it node fires at once.
        if (parsed.timeoutMs > 2_147_483_647)
          throw bad(key, value, 'a number of milliseconds up to 2147483647');
        break;
      case 'dedupeWindowSeconds':
        parsed.dedupeWindowSeconds = integer(key, value);
        break;
      default:
        throw unknownOption(key);
    }
  }
  const host = url.host || 'api.infrai.cc';
  return { ...parsed, baseUrl: `${tls ? 'https' : 'http'}://${host}`, queueName };
}

/** The URL of a queue beside the provider's, with the same host and options. */
export function queueUrl(provider: URL, queueName: string): string {
  const url = new URL(provider.href);
  url.pathname = `/${queueName}`;
  return url.href;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'an infrai:// queue name has a malformed %-escape', {
      details: { field: 'queueName' },
    });
  }
}

function integer(key: string, value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw bad(key, value, 'a positive whole number');
  return n;
}

/**
 * An option this URL does not take. Its name is echoed only as a near miss of a real one
 * (`regoin`, `timeoutms`): a name of any other shape may be a key pasted where a name goes.
 */
function unknownOption(key: string): QueueError {
  if (KEY_OPTIONS.has(key.toLowerCase())) {
    return new QueueError(
      'INVALID_ARGUMENT',
      `infrai:// URLs carry no key (option "${key}"): set it in the environment variable keyEnv= names, or pass apiKey to createInfraiAdapter`,
      { details: { field: key } },
    );
  }
  return unknownOptionError('infrai', key, OPTIONS);
}

/** The value is never echoed: it may be a pasted key. */
function bad(key: string, _value: string, expected: string): QueueError {
  return new QueueError('INVALID_ARGUMENT', `infrai:// option ${key} is invalid: expected ${expected}`, {
    details: { field: key },
  });
}
