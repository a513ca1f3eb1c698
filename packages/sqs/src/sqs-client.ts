import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { MAX_LONG_POLL_SECONDS, QueueError } from '@queueport/core/driver';
import { resolveTimeout } from './sqs-options';
import type { ParsedSqsUrl } from './sqs-url';

type Env = Readonly<Record<string, string | undefined>>;

export interface MadeClient {
  client: SQSClient;
  /** The keys it was given, for errors to mask. */
  secrets: string[];
}

/**
 * A client for a URL, for callers who bring none. The region is the URL's, else AWS_REGION or
 * AWS_DEFAULT_REGION. Keys come from the given environment where it holds them (as the CLI and
 * tests pass one), else from the SDK's own chain: environment, profile, SSO, instance role.
 * Its sockets give up on a connection after `timeoutMs`, and on an idle answer after that plus
 * the longest long poll: a floor under the driver's own deadline, which aborts the call.
 */
export function clientFor(parsed: ParsedSqsUrl, env: Env): MadeClient {
  const timeoutMs = resolveTimeout(parsed.options.timeoutMs);
  const region = parsed.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an sqs:// URL needs a region: sqs://eu-west-1/orders, or AWS_REGION in the environment',
      { details: { field: 'region' } },
    );
  }
  const config: SQSClientConfig = {
    region,
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs + MAX_LONG_POLL_SECONDS * 1000,
    },
  };
  const secrets: string[] = [];
  if (parsed.endpoint) config.endpoint = parsed.endpoint;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    config.credentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
    secrets.push(env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY);
    if (env.AWS_SESSION_TOKEN) secrets.push(env.AWS_SESSION_TOKEN);
  }
  return { client: new SQSClient(config), secrets };
}
