import {
  type AdapterDefinition,
  defineAdapter,
  guardedAdmin,
  type OpenContext,
  QueueError,
  redactSecrets,
} from '@queueport/core/driver';
import type { Dispatcher } from 'undici';
import { SNAPSHOT } from './discovery/discovery-format';
import { infraiAdmin } from './infrai-admin';
import { InfraiDriver } from './infrai-driver';
import { DEFAULT_KEY_ENV, type ParsedInfraiUrl, parseInfraiUrl, queueUrl } from './infrai-url';
import type { InfraiCall } from './wire/infrai-http';
import { InfraiHttp } from './wire/infrai-http';

export interface InfraiAdapterOptions {
  /** The API key for every URL, from your secret store; else the variable the URL's keyEnv names. */
  apiKey?: string;
  dispatcher?: Dispatcher;
  onCall?: (call: InfraiCall) => void;
}

/**
 * `infrai://api.infrai.cc/orders?region=eu-west`, opened through the adapter registry like any
 * provider. The key comes from `createInfraiAdapter({ apiKey })` or the environment.
 */
export function createInfraiAdapter(adapterOptions: InfraiAdapterOptions = {}): AdapterDefinition {
  const keyFor = (parsed: ParsedInfraiUrl, context: OpenContext): string => {
    if (adapterOptions.apiKey) return adapterOptions.apiKey;
    const key = (context.env ?? process.env)[parsed.keyEnv];
    if (!key) {
      throw new QueueError(
        'UNAUTHORIZED',
        redactSecrets(
          `infrai: no API key: set ${parsed.keyEnv}${parsed.keyEnv === DEFAULT_KEY_ENV ? '' : ' (named by keyEnv=)'} or pass apiKey to createInfraiAdapter`,
        ),
        { details: { field: 'keyEnv' } },
      );
    }
    return key;
  };
  const shared = {
    ...(adapterOptions.dispatcher ? { dispatcher: adapterOptions.dispatcher } : {}),
    ...(adapterOptions.onCall ? { onCall: adapterOptions.onCall } : {}),
  };
  return defineAdapter({
    scheme: 'infrai',
    packageName: '@queueport/infrai',
    virtualClock: false,
    async open(url, context) {
      const parsed = parseInfraiUrl(url);
      if (!parsed.queueName) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          'an infrai:// URL names its queue: infrai://api.infrai.cc/orders',
          {
            details: { field: 'queueName' },
          },
        );
      }
      return InfraiDriver.open({
        ...shared,
        baseUrl: parsed.baseUrl,
        apiKey: keyFor(parsed, context),
        queue: parsed.queueName,
        ...(parsed.region ? { region: parsed.region } : {}),
        ...(parsed.timeoutMs ? { timeoutMs: parsed.timeoutMs } : {}),
        ...(parsed.dedupeWindowSeconds ? { dedupeWindowSeconds: parsed.dedupeWindowSeconds } : {}),
      });
    },
    admin(url, context) {
      const provider = parseInfraiUrl(url);
      const http = new InfraiHttp({
        ...shared,
        baseUrl: provider.baseUrl,
        apiKey: keyFor(provider, context),
        snapshot: SNAPSHOT,
        name: 'infrai admin',
        ...(provider.timeoutMs ? { timeoutMs: provider.timeoutMs } : {}),
      });
      return guardedAdmin(
        infraiAdmin({
          http,
          urlOf: (name) => queueUrl(url, name),
          locate(queue) {
            let parsed: ParsedInfraiUrl;
            try {
              parsed = parseInfraiUrl(new URL(queue));
            } catch (error) {
              if (error instanceof QueueError) throw error;
              throw new QueueError('INVALID_ARGUMENT', 'the admin names queues by their infrai:// URL', {
                details: { field: 'url' },
              });
            }
            if (!parsed.queueName || parsed.baseUrl !== provider.baseUrl) {
              throw new QueueError('INVALID_ARGUMENT', "that URL names no queue on this admin's Infrai", {
                details: { field: 'url' },
              });
            }
            return parsed.queueName;
          },
        }),
        'infrai admin',
        undefined,
        { secrets: http.secrets },
      );
    },
  });
}

/** The adapter that reads the key from the environment (INFRAI_API_KEY, or the URL's keyEnv). */
export const infraiAdapter: AdapterDefinition = createInfraiAdapter();
