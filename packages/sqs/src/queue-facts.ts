import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** What a queue's own attributes say, read once when a driver opens. */
export interface QueueFacts {
  queueUrl: string;
  arn: string;
  fifo: boolean;
  /** SQS's MaximumMessageSize: body plus attributes, as SQS counts them. */
  maxMessageBytes: number;
  retentionSeconds: number;
  /** The redrive policy, where the queue has one. */
  redrive: { deadLetterArn: string; maxReceiveCount: number } | null;
}

const ATTRIBUTES = [
  'QueueArn',
  'FifoQueue',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'RedrivePolicy',
] as const;

export async function readQueueFacts(
  client: SQSClient,
  queueUrl: string,
  signal?: AbortSignal,
): Promise<QueueFacts> {
  const { Attributes: a = {} } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...ATTRIBUTES] }),
    signal ? { abortSignal: signal } : {},
  );
  return {
    queueUrl,
    arn: a.QueueArn ?? '',
    fifo: a.FifoQueue === 'true',
    maxMessageBytes: Number(a.MaximumMessageSize ?? 262_144),
    retentionSeconds: Number(a.MessageRetentionPeriod ?? 345_600),
    redrive: parseRedrivePolicy(a.RedrivePolicy),
  };
}

export function parseRedrivePolicy(policy: string | undefined): QueueFacts['redrive'] {
  if (!policy) return null;
  try {
    const parsed = JSON.parse(policy) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    const maxReceiveCount = Number(parsed.maxReceiveCount);
    if (typeof parsed.deadLetterTargetArn !== 'string' || !Number.isInteger(maxReceiveCount)) return null;
    return { deadLetterArn: parsed.deadLetterTargetArn, maxReceiveCount };
  } catch {
    return null;
  }
}

/** `arn:aws:sqs:<region>:<account>:<name>` → its parts; the account names the queue's owner. */
export function parseQueueArn(arn: string): { region: string; account: string; name: string } | undefined {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[2] !== 'sqs') return undefined;
  return { region: parts[3]!, account: parts[4]!, name: parts[5]! };
}
