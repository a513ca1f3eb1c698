import {
  GetQueueUrlCommand,
  type GetQueueUrlCommandOutput,
  type Message,
  type MessageAttributeValue,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { deriveProviderKey, normalizeError, QueueError, type SettleOutcome } from '@queueport/core/driver';
import { entryId, entryResults } from './batch-results';
import { SMALL_ANSWER_BYTES, type SqsCommand, sendBounded } from './call-bounds';
import { sqsErrorClassifier } from './classify-error';
import { DEDUPLICATION_ID_RULES } from './deduplication-id';
import {
  DATA_TYPE_BYTES,
  FIFO_ATTRIBUTE,
  fifoMark,
  REASON_ATTRIBUTE,
  readFifoMark,
  sqsMessageBytes,
} from './message-attributes';
import { parseQueueArn, type QueueFacts, readQueueFacts } from './queue-facts';

export interface Move {
  /** The message as it was received; undefined when this driver never handed out that receipt. */
  message: Message | undefined;
  reason: string;
}

/**
 * Moves messages to the queue that the redrive policy names, which SQS itself only does after
 * `maxReceiveCount` receives: a send of the same body and attributes (the reason added), after
 * which the driver deletes the original. Sent first, deleted second: a crash in between leaves
 * a copy in each queue, never none.
 */
export class DeadLetterMover {
  #target: Promise<QueueFacts> | undefined;

  readonly #where: string;

  constructor(
    private readonly client: SQSClient,
    private readonly deadLetterArn: string,
    private readonly name: string,
    private readonly bounds: { timeoutMs: number; secrets: readonly string[]; signal: AbortSignal },
  ) {
    this.#where = `${name} dead letters`;
  }

  async send(moves: readonly Move[]): Promise<SettleOutcome[]> {
    const target = await this.#resolve();
    const outcomes = new Array<SettleOutcome>(moves.length);
    const entries: Array<{ index: number; message: Message; reason: string }> = [];
    moves.forEach((move, index) => {
      if (move.message) entries.push({ index, message: move.message, reason: move.reason });
      else {
        outcomes[index] = {
          ok: false,
          error: new QueueError('LEASE_LOST', `${this.name}: this receipt was not received by this driver`),
        };
      }
    });
    if (entries.length === 0) return outcomes;
    const answer = await this.#call<SendMessageBatchCommandOutput>(
      new SendMessageBatchCommand({
        QueueUrl: target.queueUrl,
        Entries: entries.map(({ message, reason }, i) => ({
          Id: entryId(i),
          MessageBody: message.Body ?? '',
          MessageAttributes: this.#attributes(message, reason, target.maxMessageBytes),
          ...(target.fifo
            ? {
                MessageGroupId: message.Attributes?.MessageGroupId ?? 'default',
                MessageDeduplicationId: deriveProviderKey(
                  `dead-letter:${message.MessageId ?? ''}`,
                  DEDUPLICATION_ID_RULES,
                ),
              }
            : {}),
        })),
      }),
    );
    entryResults(
      entries.length,
      answer.Successful,
      answer.Failed,
      this.#where,
      () => true,
      this.bounds.secrets,
    ).forEach((result, i) => {
      outcomes[entries[i]!.index] = result.ok ? { ok: true } : result;
    });
    return outcomes;
  }

  /**
   * The original attributes and as much reason as fits. The FIFO mark keeps only "no group"
   * (so a redriven message still comes back ungrouped): the message was due when it was moved.
   */
  #attributes(message: Message, reason: string, limit: number): Record<string, MessageAttributeValue> {
    const attributes = { ...message.MessageAttributes };
    const mark = readFifoMark(attributes[FIFO_ATTRIBUTE]);
    delete attributes[FIFO_ATTRIBUTE];
    if (mark?.defaultGroup) {
      attributes[FIFO_ATTRIBUTE] = {
        DataType: 'String',
        StringValue: fifoMark({ notBefore: 0, defaultGroup: true }),
      };
    }
    const room =
      limit - sqsMessageBytes(message.Body ?? '', attributes) - REASON_ATTRIBUTE.length - DATA_TYPE_BYTES;
    const kept = truncateUtf8(reason, Math.min(room, 1024));
    if (kept !== '' && Object.keys(attributes).length < 10) {
      attributes[REASON_ATTRIBUTE] = { DataType: 'Binary', BinaryValue: Buffer.from(kept, 'utf8') };
    }
    return attributes;
  }

  #resolve(): Promise<QueueFacts> {
    this.#target ??= (async () => {
      const arn = parseQueueArn(this.deadLetterArn);
      if (!arn) {
        throw new QueueError('INVALID_ARGUMENT', `${this.name}: the redrive policy names no SQS queue ARN`);
      }
      const { QueueUrl } = await this.#call<GetQueueUrlCommandOutput>(
        new GetQueueUrlCommand({ QueueName: arn.name, QueueOwnerAWSAccountId: arn.account }),
      );
      if (typeof QueueUrl !== 'string' || !/^https?:\/\//.test(QueueUrl)) {
        throw new QueueError('NOT_FOUND', `${this.name}: the dead-letter queue was not found`);
      }
      try {
        return await readQueueFacts(this.client, QueueUrl, this.#bounds());
      } catch (error) {
        throw this.#normalize(error);
      }
    })().catch((error: unknown) => {
      this.#target = undefined;
      throw error;
    });
    return this.#target;
  }

  #bounds() {
    return {
      where: this.#where,
      timeoutMs: this.bounds.timeoutMs,
      maxAnswerBytes: SMALL_ANSWER_BYTES,
      signal: this.bounds.signal,
    };
  }

  #normalize(error: unknown): QueueError {
    return normalizeError(error, this.#where, sqsErrorClassifier(this.#where, this.bounds.secrets), {
      secrets: this.bounds.secrets,
    });
  }

  async #call<T>(command: SqsCommand): Promise<T> {
    try {
      return await sendBounded<T>(this.client, command, this.#bounds());
    } catch (error) {
      throw this.#normalize(error);
    }
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}
