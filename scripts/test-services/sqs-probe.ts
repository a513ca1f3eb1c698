import http from 'node:http';
import https from 'node:https';

export interface SqsAnswer {
  status: number;
  body: string;
}

/**
 * Calls ListQueues in the AWS JSON 1.0 protocol the current SDK speaks. The Authorization header
 * is a dummy SigV4 one: moto routes a request by the service named in its credential scope (with
 * none it answers as S3), and local emulators do not check signatures. node:http rather than
 * fetch, which refuses some ports outright ("bad port") that the AWS SDK would use.
 */
export function sqsListQueues(endpoint: string, timeoutMs = 2000): Promise<SqsAnswer> {
  const url = new URL('/', endpoint);
  const date = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  const body = '{}';
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': Buffer.byteLength(body),
        'x-amz-target': 'AmazonSQS.ListQueues',
        authorization: `AWS4-HMAC-SHA256 Credential=test/${date}/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-target, Signature=0`,
      },
      agent: false,
      timeout: timeoutMs,
    });
    request.once('timeout', () =>
      request.destroy(new Error(`no answer from ${url.origin} within ${timeoutMs} ms`)),
    );
    request.once('error', reject);
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.once('error', reject);
    });
    request.end(body);
  });
}

/** True when the endpoint answers ListQueues with 200 and the JSON shape SQS uses. */
export async function sqsAnswersListQueues(endpoint: string, timeoutMs?: number): Promise<boolean> {
  const { status, body } = await sqsListQueues(endpoint, timeoutMs);
  if (status !== 200) throw new Error(`ListQueues answered HTTP ${status}: ${body.slice(0, 200)}`);
  const parsed: unknown = JSON.parse(body);
  const urls = (parsed as { QueueUrls?: unknown }).QueueUrls;
  if (typeof parsed !== 'object' || parsed === null || (urls !== undefined && !Array.isArray(urls))) {
    throw new Error(`ListQueues answered an unexpected body: ${body.slice(0, 200)}`);
  }
  return true;
}
