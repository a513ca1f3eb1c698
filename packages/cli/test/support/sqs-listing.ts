import { createRequire } from 'node:module';
import path from 'node:path';

// The CLI does not depend on the AWS SDK: the SQS package, which does, lends it to the tests.
const sqsPackage = path.resolve(import.meta.dirname, '../../../sqs/package.json');
const sdk = createRequire(sqsPackage)('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');

/**
 * SQS's own list of the queues whose names start with `prefix`, in one region of a local server:
 * what is really left there, whatever the admin believes.
 */
export async function listQueues(endpoint: string, region: string, prefix: string): Promise<string[]> {
  const client = new sdk.SQSClient({
    region,
    endpoint,
    credentials: { accessKeyId: 'drilltest', secretAccessKey: 'drilltest-secret' },
  });
  try {
    const answer = await client.send(new sdk.ListQueuesCommand({ QueueNamePrefix: prefix }));
    return answer.QueueUrls ?? [];
  } finally {
    client.destroy();
  }
}
