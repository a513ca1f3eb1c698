import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * The S3 endpoint the test services found (the moto_server they started for SQS, which serves S3
 * on the same port), or why there is none: without Python's moto no S3-compatible server is
 * started, because npm has none that is kept up (s3rver, the one there is, last released in 2021).
 */
export const s3Endpoint: string | undefined = process.env.QUEUEPORT_S3_ENDPOINT;

export const NO_S3 =
  'no S3-compatible server: the S3 tests need moto_server (pip install "moto[server]") or QUEUEPORT_S3_ENDPOINT; see packages/payload-s3/README.md "Testing"';

export function s3Client(endpoint: string, maxAttempts = 3): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

let buckets = 0;

/** A bucket of its own for each test: moto's state lives as long as the server. */
export async function freshBucket(client: S3Client): Promise<string> {
  const bucket = `queueport-payloads-${process.pid}-${Date.now()}-${buckets++}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}
