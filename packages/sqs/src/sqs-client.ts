import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';
import type { ParsedSqsUrl } from './sqs-url';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A client for a URL, for callers who bring none. The region is the URL's, else AWS_REGION or
 * AWS_DEFAULT_REGION. Keys come from the given environment where it holds them (as the CLI and
 * tests pass one), else from the SDK's own chain: environment, profile, SSO, instance role.
 */
export function clientFor(parsed: ParsedSqsUrl, env: Env): SQSClient {
  const region = parsed.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an sqs:// URL needs a region: sqs://eu-west-1/orders, or AWS_REGION in the environment',
      { details: { field: 'region' } },
    );
  }
  const config: SQSClientConfig = { region };
  if (parsed.endpoint) config.endpoint = parsed.endpoint;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    config.credentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  }
  return new SQSClient(config);
}
