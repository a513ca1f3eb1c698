import type { AdapterDefinition } from '@queueport/core/driver';
import { QueueError } from '@queueport/core/driver';
import { isShowableWord } from '../config/secret-names';
import { isModuleNotFound } from '../module-not-found';
import { errorWithoutUrlSecrets } from './url-words';

interface KnownAdapter {
  packageName: string;
  /** What a user installs besides the package (its peers), for the message when it is missing. */
  peers: readonly string[];
  load(): Promise<AdapterDefinition>;
  /**
   * Parses a queue URL as opening it would, connecting to nothing: a typo in an option is
   * refused when the configuration is loaded, not after a canary was published. Throws the
   * adapter's own QueueError.
   */
  checkUrl(url: URL): Promise<void>;
  /** The environment variables a URL names that opening it reads (defaults included). */
  envNames(url: URL): Promise<string[]>;
}

/**
 * An environment where every variable is set, for a parse that must not fail on one that is
 * not: whether the variables a URL names are set is checked apart, for the commands that use it.
 */
const EVERY_VARIABLE_SET: Readonly<Record<string, string>> = new Proxy(
  {},
  { get: (_target, key) => (typeof key === 'string' ? 'set' : undefined) },
);

/** Every `*Env` option of a URL names a variable: the adapters' own convention. */
function envOptions(url: URL): string[] {
  return [...url.searchParams].filter(([key]) => /Env$/.test(key)).map(([, value]) => value);
}

/**
 * The adapters the CLI knows by scheme. Each is imported only when a provider uses it, so the
 * optional peers (BullMQ, the AWS SDK) are needed only by those who configure them.
 */
const KNOWN: Readonly<Record<string, KnownAdapter>> = {
  memory: {
    packageName: '@queueport/memory',
    peers: [],
    load: async () => (await import('@queueport/memory')).memoryAdapter,
    // The memory package exports no parser: a handle is opened (in this process, nothing to
    // connect to) and closed again.
    checkUrl: async (url) => {
      const { memoryAdapter } = await import('@queueport/memory');
      await (await memoryAdapter.open(url, {})).close();
    },
    envNames: async (url) => envOptions(url),
  },
  infrai: {
    packageName: '@queueport/infrai',
    peers: [],
    load: async () => (await import('@queueport/infrai')).infraiAdapter,
    checkUrl: async (url) => {
      (await import('@queueport/infrai')).parseInfraiUrl(url);
    },
    // The key comes from keyEnv, INFRAI_API_KEY when the URL names none.
    envNames: async (url) => [(await import('@queueport/infrai')).parseInfraiUrl(url).keyEnv],
  },
  bullmq: {
    packageName: '@queueport/bullmq',
    peers: ['bullmq', 'ioredis'],
    load: async () => (await import('@queueport/bullmq')).bullmqAdapter,
    checkUrl: async (url) => {
      (await import('@queueport/bullmq')).parseBullmqUrl(url, EVERY_VARIABLE_SET);
    },
    envNames: async (url) => envOptions(url),
  },
  sqs: {
    packageName: '@queueport/sqs',
    peers: ['@aws-sdk/client-sqs'],
    load: async () => (await import('@queueport/sqs')).sqsAdapter,
    checkUrl: async (url) => {
      (await import('@queueport/sqs')).parseSqsUrl(url);
    },
    // Credentials come from the AWS SDK's own chain (variables, profile, instance role).
    envNames: async (url) => envOptions(url),
  },
};

export function knownSchemes(): string[] {
  return Object.keys(KNOWN);
}

/**
 * The adapter for a scheme: a program's own first (`extra`), then the known ones. A package
 * that is not installed is a QueueError naming what to install, so a drill reports it as the
 * provider's failure instead of crashing.
 */
export async function loadAdapter(
  scheme: string,
  extra: readonly AdapterDefinition[] = [],
): Promise<AdapterDefinition> {
  const own = extra.find((definition) => definition.scheme === scheme);
  if (own) return withoutEchoedUrls(own);
  const known = KNOWN[scheme];
  if (!known) {
    const schemes = [...extra.map((d) => d.scheme), ...knownSchemes()];
    // A scheme of any other shape may be a token pasted where the scheme goes.
    const shown = isShowableWord(scheme) ? `${scheme}://` : 'this scheme (not shown)';
    throw new QueueError(
      'INVALID_ARGUMENT',
      `no adapter for ${shown}; known: ${schemes.map((s) => `${s}://`).join(', ')}`,
      { details: { scheme: isShowableWord(scheme) ? scheme : '(not shown)' } },
    );
  }
  try {
    return withoutEchoedUrls(await known.load());
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    const install = [known.packageName, ...known.peers].join(' ');
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${scheme}:// providers need ${known.packageName}${known.peers.length ? ` and its peers ${known.peers.join(', ')}` : ''}, which could not be loaded: npm i ${install}`,
      { details: { scheme, packageName: known.packageName } },
    );
  }
}

/**
 * Checks a queue URL with its adapter's own parser, connecting to nothing. A program's own
 * adapter is checked through its `checkUrl` where it has one (a hook the AdapterDefinition
 * does not declare yet); a known adapter whose package is not installed is not checked here
 * (opening it says what to install). Throws the adapter's QueueError.
 */
export async function checkAdapterUrl(url: URL, extra: readonly AdapterDefinition[] = []): Promise<void> {
  const scheme = url.protocol.replace(/:$/, '');
  const own = extra.find((definition) => definition.scheme === scheme);
  const known = KNOWN[scheme];
  try {
    if (own) {
      const check = (own as { checkUrl?: (url: URL) => unknown }).checkUrl;
      if (typeof check === 'function') await check.call(own, url);
    } else if (known) {
      await known.checkUrl(url);
    }
  } catch (error) {
    if (!own && isModuleNotFound(error)) return;
    throw errorWithoutUrlSecrets(error, url);
  }
}

/**
 * The definition with every open's and admin's failure rid of the URL's secret-looking words:
 * a parser may quote a token typed where a queue name or an option goes, and the CLI prints
 * what it throws.
 */
function withoutEchoedUrls(definition: AdapterDefinition): AdapterDefinition {
  const { admin } = definition;
  return {
    ...definition,
    open: async (url, context) => {
      try {
        return await definition.open(url, context);
      } catch (error) {
        throw errorWithoutUrlSecrets(error, url);
      }
    },
    ...(admin
      ? {
          admin: async (url: URL, context) => {
            try {
              return await admin.call(definition, url, context);
            } catch (error) {
              throw errorWithoutUrlSecrets(error, url);
            }
          },
        }
      : {}),
  };
}

/**
 * The environment variables opening the URL reads, by a known adapter's rules (an Infrai URL
 * reads INFRAI_API_KEY unless it names another); a program's own adapter, by the `*Env`
 * convention only. `ownSchemes` undefined: which adapters serve the URL is not known (a
 * configuration a program built itself, with adapters of its own), so only the `*Env` options.
 * Empty where the URL does not parse (checkAdapterUrl says why).
 */
export async function adapterEnvNames(
  url: URL,
  ownSchemes: readonly string[] | undefined,
): Promise<string[]> {
  const scheme = url.protocol.replace(/:$/, '');
  const known = ownSchemes === undefined || ownSchemes.includes(scheme) ? undefined : KNOWN[scheme];
  try {
    return known ? await known.envNames(url) : envOptions(url);
  } catch {
    return [];
  }
}
