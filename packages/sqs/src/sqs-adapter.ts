import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  type AdapterDefinition,
  defineAdapter,
  guardedAdmin,
  type OpenContext,
  QueueError,
} from '@queueport/core/driver';
import { sqsErrorClassifier } from './classify-error';
import { sqsAdmin } from './sqs-admin';
import { clientFor } from './sqs-client';
import { SqsDriver } from './sqs-driver';
import { resolveTimeout } from './sqs-options';
import { type ParsedSqsUrl, parseSqsUrl, queueUrl } from './sqs-url';

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
  const connect = (parsed: ParsedSqsUrl, context: OpenContext) =>
    adapterOptions.client
      ? { client: adapterOptions.client, owns: false, secrets: [] as string[] }
      : { ...clientFor(parsed, context.env ?? process.env), owns: true };
  return defineAdapter({
    scheme: 'sqs',
    packageName: '@queueport/sqs',
    virtualClock: false,
    async open(url, context) {
      const parsed = parseSqsUrl(url);
      if (!parsed.queueName) {
        throw new QueueError('INVALID_ARGUMENT', 'an sqs:// URL names its queue: sqs://eu-west-1/orders', {
          details: { field: 'queueName' },
        });
      }
      const { client, owns, secrets } = connect(parsed, context);
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
    admin(url, context) {
      const provider = parseSqsUrl(url);
      const { client, owns, secrets } = connect(provider, context);
      return guardedAdmin(
        sqsAdmin({
          client,
          ownsClient: owns,
          timeoutMs: resolveTimeout(provider.options.timeoutMs),
          urlOf: (queueName, accountId) => queueUrl(url, queueName, accountId),
          locate(queue) {
            const parsed = parseSqsUrl(urlOf(queue));
            if (
              !parsed.queueName ||
              parsed.region !== provider.region ||
              parsed.endpoint !== provider.endpoint
            ) {
              throw new QueueError(
                'INVALID_ARGUMENT',
                "that URL names no queue in this admin's region and endpoint",
                {
                  details: { field: 'url' },
                },
              );
            }
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

function urlOf(queue: string): URL {
  try {
    return new URL(queue);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'the admin names queues by their sqs:// URL', {
      details: { field: 'url' },
    });
  }
}

/** The adapter that makes a client per URL. */
export const sqsAdapter: AdapterDefinition = createSqsAdapter();
