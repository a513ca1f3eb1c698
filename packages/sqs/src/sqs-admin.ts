import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  type CreateQueueCommandOutput,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type GetQueueAttributesCommandOutput,
  GetQueueUrlCommand,
  type GetQueueUrlCommandOutput,
  type Message,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { CreateQueueRequest, DeadLetterRecord, QueueStats } from '@queueport/core';
import {
  checkAdminSettings,
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  deriveProviderKey,
  eventIdOfBody,
  MAX_RETENTION_SECONDS,
  type QueueAdmin,
  QueueError,
} from '@queueport/core/driver';
import { entryResults } from './batch-results';
import {
  DEFAULT_TIMEOUT_MS,
  receiveAnswerBytes,
  SMALL_ANSWER_BYTES,
  type SqsCommand,
  sendBounded,
} from './call-bounds';
import { DEDUPLICATION_ID_RULES } from './deduplication-id';
import { fromSqsAttributes, REASON_ATTRIBUTE } from './message-attributes';
import { fromSqsBody } from './message-body';
import { moveTaskRedrive } from './move-task';
import { parseQueueArn, parseRedrivePolicy } from './queue-facts';
import { checkReceived } from './received-message';
import { SQS_BATCH } from './sqs-options';

export interface SqsAdminOptions {
  client: SQSClient;
  /** The URL (sqs://…) that opens a queue of this name. */
  urlOf(queueName: string, accountId?: string): string;
  /** The queue's name and owner for one of this admin's URLs; refuses any other. */
  locate(url: string): { queueName: string; accountId: string | undefined };
  /** Destroys the client on close: only for one the adapter made. */
  ownsClient: boolean;
  /** Each call's deadline, as the driver's `timeoutMs`. Default 10,000 ms. */
  timeoutMs?: number;
}

/** The largest message SQS holds: the bound on what a listing of dead letters reads. */
const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/** Long enough that one listing never sees a message twice; handed back when it ends. */
const LISTING_LEASE_SECONDS = 30;
const SETTINGS = [
  'fifo',
  'deadLetterQueue',
  'maxMessageBytes',
  'retentionSeconds',
  'visibilityTimeoutSeconds',
];
const DEAD_LETTER_SUFFIX = '-dlq';

interface Located {
  queueUrl: string;
  arn: string;
  fifo: boolean;
  deadLetter: { queueUrl: string; arn: string } | null;
}

/**
 * The admin surface over SQS: scratch queues with their dead-letter queue, depth from the queue
 * attributes, and dead letters listed (received, then handed back) and redriven.
 */
export function sqsAdmin(options: SqsAdminOptions): QueueAdmin {
  const { client } = options;
  let moveTasks: 'unknown' | 'unsupported' = 'unknown';
  const closing = new AbortController();
  /** Every call bounded in time and size, as the driver's are, and ended by close(). */
  const send = <T>(command: SqsCommand, maxAnswerBytes = SMALL_ANSWER_BYTES): Promise<T> =>
    sendBounded<T>(client, command, {
      where: 'sqs admin',
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxAnswerBytes,
      signal: closing.signal,
    });

  const urlOfName = async (queueName: string, accountId?: string): Promise<string> => {
    const { QueueUrl } = await send<GetQueueUrlCommandOutput>(
      new GetQueueUrlCommand({
        QueueName: queueName,
        ...(accountId ? { QueueOwnerAWSAccountId: accountId } : {}),
      }),
    );
    if (typeof QueueUrl !== 'string' || !/^https?:\/\/\S+$/.test(QueueUrl))
      throw new QueueError('NOT_FOUND', `sqs: no queue named ${queueName}`);
    return QueueUrl;
  };

  const locate = async (url: string): Promise<Located> => {
    const { queueName, accountId } = options.locate(url);
    const queueUrl = await urlOfName(queueName, accountId);
    const { Attributes: a = {} } = await send<GetQueueAttributesCommandOutput>(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['QueueArn', 'FifoQueue', 'RedrivePolicy'],
      }),
    );
    const redrive = parseRedrivePolicy(a.RedrivePolicy);
    const target = redrive ? parseQueueArn(redrive.deadLetterArn) : undefined;
    return {
      queueUrl,
      arn: a.QueueArn ?? '',
      fifo: a.FifoQueue === 'true',
      deadLetter:
        redrive && target
          ? { queueUrl: await urlOfName(target.name, target.account), arn: redrive.deadLetterArn }
          : null,
    };
  };

  const counts = async (queueUrl: string): Promise<number> => {
    const { Attributes: a = {} } = await send<GetQueueAttributesCommandOutput>(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return (
      count(a.ApproximateNumberOfMessages) +
      count(a.ApproximateNumberOfMessagesNotVisible) +
      count(a.ApproximateNumberOfMessagesDelayed)
    );
  };

  /**
   * Up to `limit` of a queue's messages, each leased to us: oldest first as far as SQS says.
   * Only messages whose fields are what SQS writes; any other comes back when its lease ends.
   */
  const take = async (queueUrl: string, limit: number): Promise<Message[]> => {
    const taken: Message[] = [];
    const receipts = new Set<string>();
    while (taken.length < limit) {
      const asked = Math.min(SQS_BATCH, limit - taken.length);
      const { Messages } = await send<ReceiveMessageCommandOutput>(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: asked,
          VisibilityTimeout: LISTING_LEASE_SECONDS,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'],
          AttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'MessageGroupId'] as never,
        }),
        receiveAnswerBytes(asked, SQS_MAX_MESSAGE_BYTES),
      );
      const received = Array.isArray(Messages) ? Messages : [];
      if (received.length === 0) break;
      for (const value of received.slice(0, asked)) {
        const checked = checkReceived(value, SQS_MAX_MESSAGE_BYTES);
        if (!checked.ok || receipts.has(checked.message.receipt)) continue;
        receipts.add(checked.message.receipt);
        taken.push(checked.message.raw);
      }
    }
    return taken;
  };

  const inBatches = async <T>(items: readonly T[], run: (batch: T[]) => Promise<unknown>): Promise<void> => {
    for (let i = 0; i < items.length; i += SQS_BATCH) await run(items.slice(i, i + SQS_BATCH));
  };

  const handBack = (queueUrl: string, messages: readonly Message[]) =>
    inBatches(messages, (batch) =>
      send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((m, i) => ({
            Id: String(i),
            ReceiptHandle: m.ReceiptHandle!,
            VisibilityTimeout: 0,
          })),
        }),
      ),
    );

  const deadLettersOf = (located: Located) => {
    if (!located.deadLetter) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        'sqs: this queue has no redrive policy, so no dead-letter queue',
        {
          details: { field: 'url' },
        },
      );
    }
    return located.deadLetter;
  };

  /** The bounded move loop: take from the dead letters, send to the queue, delete the taken. */
  const moveBack = async (located: Located, limit: number): Promise<number> => {
    const deadLetter = deadLettersOf(located);
    let moved = 0;
    while (moved < limit) {
      const batch = await take(deadLetter.queueUrl, Math.min(SQS_BATCH, limit - moved));
      if (batch.length === 0) break;
      const sent = await send<SendMessageBatchCommandOutput>(
        new SendMessageBatchCommand({
          QueueUrl: located.queueUrl,
          Entries: batch.map((m, i) => {
            const attributes = { ...m.MessageAttributes };
            delete attributes[REASON_ATTRIBUTE];
            return {
              Id: String(i),
              MessageBody: m.Body ?? '',
              ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
              ...(located.fifo
                ? {
                    MessageGroupId: m.Attributes?.MessageGroupId ?? 'default',
                    // A new id: the message's own was absorbed within 5 minutes of its first send.
                    MessageDeduplicationId: deriveProviderKey(
                      `redrive:${m.MessageId}`,
                      DEDUPLICATION_ID_RULES,
                    ),
                  }
                : {}),
            };
          }),
        }),
      );
      // Only what SQS confirmed by exact id is deleted from the dead letters: a lookalike id or a
      // missing answer leaves the dead letter where it is.
      const results = entryResults(batch.length, sent?.Successful, sent?.Failed, 'sqs admin', () => true);
      const ok = new Set(results.flatMap((result, i) => (result.ok ? [i] : [])));
      const done = batch.filter((_, i) => ok.has(i));
      if (done.length > 0) {
        await send(
          new DeleteMessageBatchCommand({
            QueueUrl: deadLetter.queueUrl,
            Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
      }
      // What could not be sent stays a dead letter, visible again at once.
      await handBack(
        deadLetter.queueUrl,
        batch.filter((_, i) => !ok.has(i)),
      );
      moved += done.length;
      if (done.length < batch.length) break;
    }
    return moved;
  };

  return {
    async createQueue(request: CreateQueueRequest): Promise<string> {
      const settings = request.settings ?? {};
      checkAdminSettings(settings, SETTINGS, 'sqs');
      const fifo = settings.fifo === true || request.name.endsWith('.fifo');
      const base = request.name.replace(/\.fifo$/, '');
      const name = fifo ? `${base}.fifo` : base;
      const attributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
      if (settings.maxMessageBytes !== undefined)
        attributes.MaximumMessageSize = String(settings.maxMessageBytes);
      if (settings.retentionSeconds !== undefined)
        attributes.MessageRetentionPeriod = String(settings.retentionSeconds);
      if (settings.visibilityTimeoutSeconds !== undefined) {
        attributes.VisibilityTimeout = String(settings.visibilityTimeoutSeconds);
      }
      if (settings.deadLetterQueue !== false || request.redriveAfterReceives !== undefined) {
        const { QueueUrl: dlqUrl } = await send<CreateQueueCommandOutput>(
          new CreateQueueCommand({
            QueueName: `${base}${DEAD_LETTER_SUFFIX}${fifo ? '.fifo' : ''}`,
            Attributes: {
              ...(fifo ? { FifoQueue: 'true' } : {}),
              ...(attributes.MaximumMessageSize ? { MaximumMessageSize: attributes.MaximumMessageSize } : {}),
              // Dead letters keep their original send time, so they get the longest retention there is.
              MessageRetentionPeriod: String(MAX_RETENTION_SECONDS),
            },
          }),
        );
        const { Attributes } = await send<GetQueueAttributesCommandOutput>(
          new GetQueueAttributesCommand({ QueueUrl: dlqUrl!, AttributeNames: ['QueueArn'] }),
        );
        attributes.RedrivePolicy = JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn,
          // SQS's own maximum (1,000) would make a scratch queue's redrive take hours on real time.
          maxReceiveCount: request.redriveAfterReceives ?? DEFAULT_REDRIVE_AFTER_RECEIVES,
        });
      }
      await send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
      return options.urlOf(name);
    },

    async deleteQueue(url: string): Promise<void> {
      const located = await locate(url);
      await send(new DeleteQueueCommand({ QueueUrl: located.queueUrl }));
      // Only the dead-letter queue createQueue made goes with it; a shared one stays.
      const { queueName } = options.locate(url);
      const ours = `${queueName.replace(/\.fifo$/, '')}${DEAD_LETTER_SUFFIX}${located.fifo ? '.fifo' : ''}`;
      if (located.deadLetter && parseQueueArn(located.deadLetter.arn)?.name === ours) {
        await send(new DeleteQueueCommand({ QueueUrl: located.deadLetter.queueUrl }));
      }
    },

    async stats(url: string): Promise<QueueStats> {
      const located = await locate(url);
      return {
        depth: await counts(located.queueUrl),
        // Queue attributes carry no age; CloudWatch's ApproximateAgeOfOldestMessage does.
        oldestReadyAgeSeconds: null,
        deadLetters: located.deadLetter ? await counts(located.deadLetter.queueUrl) : null,
      };
    },

    async listDeadLetters(url: string, { limit }: { limit: number }): Promise<DeadLetterRecord[]> {
      const deadLetter = deadLettersOf(await locate(url));
      const taken = await take(deadLetter.queueUrl, limit);
      await handBack(deadLetter.queueUrl, taken);
      const bySend = [...taken].sort(
        (a, b) => Number(a.Attributes?.SentTimestamp ?? 0) - Number(b.Attributes?.SentTimestamp ?? 0),
      );
      return bySend.map((m) => {
        const body = fromSqsBody(m.Body ?? '');
        const reason = m.MessageAttributes?.[REASON_ATTRIBUTE];
        const attributes = fromSqsAttributes(m.MessageAttributes);
        delete attributes[REASON_ATTRIBUTE];
        const sent = Number(m.Attributes?.SentTimestamp ?? 0);
        return {
          messageId: m.MessageId ?? '',
          eventId: eventIdOfBody(body),
          body,
          attributes,
          // Less this listing's own receive.
          receiveCount: Math.max(0, count(m.Attributes?.ApproximateReceiveCount) - 1),
          reason: reason?.BinaryValue
            ? Buffer.from(reason.BinaryValue).toString('utf8')
            : reason?.StringValue,
          // A moved message was sent to the dead letters then; SQS's own redrive keeps the first send's time.
          at: reason && sent > 0 ? sent : undefined,
        };
      });
    },

    async redriveDeadLetters(url: string, { limit }: { limit: number }): Promise<number> {
      const located = await locate(url);
      const deadLetter = deadLettersOf(located);
      if (moveTasks === 'unknown' && limit >= (await counts(deadLetter.queueUrl))) {
        const moved = await moveTaskRedrive(send, deadLetter.arn, located.arn);
        if (moved !== undefined) return moved;
        // This server has no message-move tasks (moto, local emulators): move them one by one.
        moveTasks = 'unsupported';
      }
      return moveBack(located, limit);
    },

    async purge(url: string): Promise<void> {
      const located = await locate(url);
      await send(new PurgeQueueCommand({ QueueUrl: located.queueUrl }));
    },

    async close(): Promise<void> {
      closing.abort(new QueueError('CLOSED', 'sqs admin is closed'));
      if (options.ownsClient) client.destroy();
    },
  };
}

/** A count SQS writes as digits; anything else counts as none. */
function count(value: unknown): number {
  return typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : 0;
}
