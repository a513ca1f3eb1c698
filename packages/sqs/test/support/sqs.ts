import type { SqsServerKind } from '../../../../scripts/test-services/types';

/**
 * The SQS server `pnpm test` started (QUEUEPORT_SQS_ENDPOINT), or undefined where there is
 * none: SQS tests then skip with the reason the global setup gave.
 */
export const sqsEndpoint: string | undefined = process.env.QUEUEPORT_SQS_ENDPOINT;
export const sqsServer: SqsServerKind | undefined = process.env.QUEUEPORT_SQS_SERVER as
  | SqsServerKind
  | undefined;

// Local servers take any keys; the SDK still wants some to sign with.
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

export const REGION = 'us-east-1';

/** A provider URL for the test server with the given driver options. */
export function sqsProviderUrl(query: Record<string, string | number> = {}): string {
  const url = new URL(`sqs://${REGION}`);
  url.searchParams.set('endpoint', sqsEndpoint ?? 'http://127.0.0.1:1');
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return url.href;
}
