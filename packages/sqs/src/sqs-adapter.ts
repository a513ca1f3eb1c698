import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  type AdapterDefinition,
  defineAdapter,
  guardedAdmin,
  importWithPeers,
  type OpenContext,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import { sqsErrorClassifier } from './classify-error';
import { resolveTimeout } from './sqs-options';
import { type ParsedSqsUrl, parseSqsUrl, queueUrl, sqsUrls } from './sqs-url';

export interface SqsAdapterOptions {
  /**
   * Your own configured SQSClient, used for every URL: its region, endpoint, credentials and
   * retries win over the URL's, which then only names the queue and the driver's options.
   * Never destroyed by queueport.
   */
  client?: SQSClient;
}

/**
 * `sqs://eu-west-1/orders.fifo?defaultGroupId=tenant`, opened through the adapter registry like
 * any provider. `createSqsAdapter({ client })` uses your own client.
 */
export function createSqsAdapter(adapterOptions: SqsAdapterOptions = {}): AdapterDefinition {
  const connect = async (parsed: ParsedSqsUrl, context: OpenContext) =>
    adapterOptions.client
      ? { client: adapterOptions.client, owns: false, secrets: [] as string[] }
      : { ...(await sdkParts()).clientFor(parsed, context.env ?? process.env), owns: true };
  return defineAdapter({
    scheme: 'sqs',
    packageName: '@queueport/sqs',
    virtualClock: false,
    peers: SQS_PEERS,
    secretPatterns: AWS_SECRET_PATTERNS,
    // Its checkRest holds SQS's own rules (the region as the host, no port).
    urls: sqsUrls,
    endpoint: localEndpoint,
    async open(url, context) {
      const parsed = parseSqsUrl(url);
      requireQueueName('sqs', parsed.queueName, 'sqs://eu-west-1/orders');
      const { SqsDriver } = await sdkParts();
      const { client, owns, secrets } = await connect(parsed, context);
      try {
        return await SqsDriver.open({
          ...parsed.options,
          secrets,
          client,
          queue: parsed.queueName,
          ...(parsed.accountId ? { accountId: parsed.accountId } : {}),
          ownsClient: owns,
        });
      } catch (error) {
        // A refused open must not leave sockets behind: they would keep a CLI process alive.
        if (owns) client.destroy();
        throw error;
      }
    },
    async admin(url, context) {
      const provider = parseSqsUrl(url);
      const { sqsAdmin } = await sdkParts();
      const { client, owns, secrets } = await connect(provider, context);
      const locate = queueLocator({
        scheme: 'sqs',
        parse: parseSqsUrl,
        provider,
        sameProvider: (queue, at) => queue.region === at.region && queue.endpoint === at.endpoint,
        providerNoun: 'region and endpoint',
      });
      return guardedAdmin(
        sqsAdmin({
          client,
          ownsClient: owns,
          timeoutMs: resolveTimeout(provider.options.timeoutMs),
          urlOf: (queueName, accountId) => queueUrl(url, queueName, accountId),
          locate(queue) {
            const parsed = locate(queue);
            return { queueName: parsed.queueName, accountId: parsed.accountId };
          },
        }),
        'sqs admin',
        sqsErrorClassifier('sqs admin', secrets),
        { secrets },
      );
    },
  });
}

/**
 * AWS access key ids, long-term (`AKIA`) and temporary (`ASIA`): masked in every error once
 * this definition is loaded. The secret access key has no prefix; the generic forms and the
 * environment's values cover it.
 */
const AWS_SECRET_PATTERNS: readonly RegExp[] = [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/];

/** What a user installs beside @queueport/sqs. */
const SQS_PEERS = ['@aws-sdk/client-sqs'] as const;

/**
 * The parts that use the AWS SDK, imported at the first open or admin: the definition (its
 * peers, its URL rules) reads without the SDK installed, and a missing SDK is a QueueError
 * naming the install line, not an import failure.
 */
function sdkParts() {
  return importWithPeers(
    { scheme: 'sqs', packageName: '@queueport/sqs', peers: SQS_PEERS },
    () => import('./sqs-sdk-parts'),
  );
}

/** AWS itself is reached through the SDK's own resolution; only a local `endpoint=` is a server to probe. */
function localEndpoint(url: URL): { host: string; port: number } | undefined {
  // The grammar's own reading of endpoint= (already checked to be a plain http(s) URL), so the
  // probe and the client never disagree on it.
  const { endpoint } = sqsUrls.read(url).options;
  if (!endpoint) return undefined;
  const server = new URL(endpoint);
  const port = Number(server.port || (server.protocol === 'https:' ? 443 : 80));
  return server.hostname ? { host: server.hostname.replace(/^\[|\]$/g, ''), port } : undefined;
}

/** The adapter that makes a client per URL. */
export const sqsAdapter: AdapterDefinition = createSqsAdapter();
