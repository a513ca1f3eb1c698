import {
  GetQueueAttributesCommand,
  type GetQueueAttributesCommandOutput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';
import { type CallBounds, sendBounded } from './call-bounds';

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

/** SQS's range of MaximumMessageSize, and of MessageRetentionPeriod. */
const MESSAGE_BYTES = { min: 1024, max: 1_048_576 };
const RETENTION_SECONDS = { min: 60, max: 1_209_600 };

export async function readQueueFacts(
  client: SQSClient,
  queueUrl: string,
  bounds: CallBounds,
): Promise<QueueFacts> {
  const answer = await sendBounded<GetQueueAttributesCommandOutput>(
    client,
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...ATTRIBUTES] }),
    bounds,
  );
  const a: Record<string, unknown> = isRecord(answer?.Attributes) ? answer.Attributes : {};
  const text = (name: string) => (typeof a[name] === 'string' ? (a[name] as string) : undefined);
  return {
    queueUrl,
    arn: text('QueueArn') ?? '',
    fifo: text('FifoQueue') === 'true',
    maxMessageBytes: whole(
      bounds.where,
      'MaximumMessageSize',
      text('MaximumMessageSize'),
      262_144,
      MESSAGE_BYTES,
    ),
    retentionSeconds: whole(
      bounds.where,
      'MessageRetentionPeriod',
      text('MessageRetentionPeriod'),
      345_600,
      RETENTION_SECONDS,
    ),
    redrive: parseRedrivePolicy(text('RedrivePolicy')),
  };
}

/** A queue attribute SQS writes as a whole number within its range; anything else is not SQS. */
function whole(
  where: string,
  name: string,
  value: string | undefined,
  fallback: number,
  range: { min: number; max: number },
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]{1,10}$/.test(value ?? '') || n < range.min || n > range.max) {
    throw new QueueError('UNAVAILABLE', `${where}: SQS answered a ${name} no queue can have`, {
      details: { attribute: name },
    });
  }
  return n;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseRedrivePolicy(policy: string | undefined): QueueFacts['redrive'] {
  if (!policy) return null;
  try {
    const parsed = JSON.parse(policy) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    const maxReceiveCount = Number(parsed.maxReceiveCount);
    if (
      typeof parsed.deadLetterTargetArn !== 'string' ||
      !Number.isInteger(maxReceiveCount) ||
      maxReceiveCount < 1 ||
      maxReceiveCount > 1000
    ) {
      return null;
    }
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
