import type { AdapterDefinition } from '@queueport/core/driver';
import { QueueError } from '@queueport/core/driver';
import { isModuleNotFound } from '../module-not-found';

interface KnownAdapter {
  packageName: string;
  /** What a user installs besides the package (its peers), for the message when it is missing. */
  peers: readonly string[];
  load(): Promise<AdapterDefinition>;
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
  },
  infrai: {
    packageName: '@queueport/infrai',
    peers: [],
    load: async () => (await import('@queueport/infrai')).infraiAdapter,
  },
  bullmq: {
    packageName: '@queueport/bullmq',
    peers: ['bullmq', 'ioredis'],
    load: async () => (await import('@queueport/bullmq')).bullmqAdapter,
  },
  sqs: {
    packageName: '@queueport/sqs',
    peers: ['@aws-sdk/client-sqs'],
    load: async () => (await import('@queueport/sqs')).sqsAdapter,
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
  if (own) return own;
  const known = KNOWN[scheme];
  if (!known) {
    const schemes = [...extra.map((d) => d.scheme), ...knownSchemes()];
    throw new QueueError(
      'INVALID_ARGUMENT',
      `no adapter for ${scheme}://; known: ${schemes.map((s) => `${s}://`).join(', ')}`,
      {
        details: { scheme },
      },
    );
  }
  try {
    return await known.load();
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
