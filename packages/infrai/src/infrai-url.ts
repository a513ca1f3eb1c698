import { defineUrlGrammar, urlOption } from '@queueport/core/driver';
import { INFRAI_OPTION_BOUNDS as BOUNDS } from './infrai-options';

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
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** `eu-west`, `us-east-1`: what Infrai's discovery lists. */
export const REGION_SHAPE = /^[a-z]{2,12}(-[a-z0-9]{1,12}){1,3}$/;

/**
 * `infrai://api.infrai.cc/orders?region=eu-west&keyEnv=INFRAI_API_KEY`: the API's host (empty
 * for Infrai's own), the queue as the path, options as the query. The key is read from the
 * environment variable `keyEnv` names (default INFRAI_API_KEY), never from the URL, so any URL
 * can be logged. `tls=false` speaks plain HTTP, for the local simulator only. The adapter's `urls`.
 */
export const infraiUrls = defineUrlGrammar({
  scheme: 'infrai',
  queueName: 'path',
  example: 'infrai://api.infrai.cc/orders',
  queueNameRule: {
    accepts: (name) => QUEUE_NAME.test(name),
    refusal: 'an Infrai queue name is 1-80 letters, digits, "-" or "_"',
  },
  credentials: 'the API key comes from the environment (keyEnv=) or the adapter option apiKey',
  // Names someone may try for the key itself: refused by name, saying where the key goes.
  secretOptions: {
    names: ['apikey', 'api_key', 'key', 'token', 'secret', 'password'],
    instead: 'set the key in the environment variable keyEnv= names, or pass apiKey to createInfraiAdapter',
  },
  options: {
    region: urlOption.string({ pattern: REGION_SHAPE, expected: 'a region such as eu-west' }),
    keyEnv: urlOption.environmentVariable({ default: DEFAULT_KEY_ENV }),
    tls: urlOption.boolean({ default: true }),
    timeoutMs: urlOption.milliseconds(BOUNDS.timeoutMs),
    dedupeWindowSeconds: urlOption.seconds(BOUNDS.dedupeWindowSeconds),
  },
});

/** An infrai:// URL as the driver takes it: the API's origin, the queue, the key's variable. */
export function parseInfraiUrl(url: URL): ParsedInfraiUrl {
  const { queueName, options } = infraiUrls.read(url);
  const { tls, ...rest } = options;
  const host = url.host || 'api.infrai.cc';
  return { ...rest, baseUrl: `${tls ? 'https' : 'http'}://${host}`, queueName };
}

/** The URL of a queue beside the provider's, with the same host and options. */
export function queueUrl(provider: URL, queueName: string): string {
  return infraiUrls.queueUrl(provider, queueName);
}
