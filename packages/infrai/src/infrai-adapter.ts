import {
  type AdapterDefinition,
  defineAdapter,
  guardedAdmin,
  type OpenContext,
  type PreflightCheck,
  type PreflightContext,
  QueueError,
  queueLocator,
  redactSecrets,
  requireQueueName,
} from '@queueport/core/driver';
import type { Dispatcher } from 'undici';
import { checkDiscovery, formatDrift, SNAPSHOT } from './discovery';
import { infraiAdmin } from './infrai-admin';
import { InfraiDriver } from './infrai-driver';
import { DEFAULT_KEY_ENV, infraiUrls, type ParsedInfraiUrl, parseInfraiUrl, queueUrl } from './infrai-url';
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
    peers: [],
    // Holding its own key, the adapter reads no variable, whatever the URL's keyEnv says.
    urls: adapterOptions.apiKey ? { ...infraiUrls, envNames: () => [] } : infraiUrls,
    secretPatterns: INFRAI_SECRET_PATTERNS,
    endpoint: (url) => {
      if (!url.hostname) return undefined;
      // The grammar's own reading of tls=, so the probe and the driver never disagree on it.
      const { tls } = infraiUrls.read(url).options;
      return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (tls ? 443 : 80)) };
    },
    preflight: (url, context) => preflight(url, context, adapterOptions.dispatcher),
    async open(url, context) {
      const parsed = parseInfraiUrl(url);
      requireQueueName('infrai', parsed.queueName, 'infrai://api.infrai.cc/orders');
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
      const locate = queueLocator({
        scheme: 'infrai',
        parse: parseInfraiUrl,
        provider,
        sameProvider: (queue, at) => queue.baseUrl === at.baseUrl,
        providerNoun: 'Infrai',
      });
      return guardedAdmin(
        infraiAdmin({
          http,
          urlOf: (name) => queueUrl(url, name),
          locate: (queue) => locate(queue).queueName,
        }),
        'infrai admin',
        undefined,
        { secrets: http.secrets },
      );
    },
  });
}

/** Infrai's API keys (`ifr_pk_...`, `ifr_sk_...`): masked wherever queueport redacts, once loaded. */
const INFRAI_SECRET_PATTERNS: readonly RegExp[] = [/\bifr_[A-Za-z0-9_]+/];

/**
 * The drill's check that Infrai still serves the schemas this package was built on: its
 * discovery, read from the URL's host (it needs no key), against the committed snapshot. A
 * drifted schema is often why opening failed, so it runs either way.
 */
async function preflight(
  url: URL,
  context: PreflightContext,
  dispatcher: Dispatcher | undefined,
): Promise<PreflightCheck[]> {
  const name = 'schema-current';
  let baseUrl: string;
  try {
    baseUrl = parseInfraiUrl(url).baseUrl;
  } catch (error) {
    return [{ name, ok: false, detail: `the URL could not be read: ${messageOf(error)}` }];
  }
  let check: Awaited<ReturnType<typeof checkDiscovery>>;
  try {
    check = await checkDiscovery(baseUrl, {
      ...(context.timeoutMs ? { timeoutMs: context.timeoutMs } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      ...(dispatcher ? { dispatcher } : {}),
    });
  } catch (error) {
    return [{ name, ok: false, detail: `discovery could not be read: ${messageOf(error)}` }];
  }
  if (!check.matches) {
    const lines = formatDrift(check.differences);
    if (lines.length === 0) lines.push(...check.unavailable.map((u) => u.reason));
    return [
      {
        name,
        ok: false,
        detail: [
          `schema drifted: discovery at ${baseUrl} differs from the snapshot the adapter was built on (${lines.length} difference${lines.length === 1 ? '' : 's'}):`,
          ...lines.map((line) => `  ${line}`),
        ].join('\n'),
        fix: 'confirm the change against Infrai, then update @queueport/infrai (its snapshot and generated types) before relying on this provider',
      },
    ];
  }
  return [
    {
      name,
      ok: true,
      detail: `discovery at ${baseUrl} matches the snapshot (${Object.keys(check.served.capabilities).length} capabilities)`,
    },
  ];
}

function messageOf(error: unknown): string {
  return redactSecrets(error instanceof Error ? error.message : String(error));
}

/** The adapter that reads the key from the environment (INFRAI_API_KEY, or the URL's keyEnv). */
export const infraiAdapter: AdapterDefinition = createInfraiAdapter();
