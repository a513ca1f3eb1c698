import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  type MessageSystemAttributeName,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  type Capabilities,
  type DeadLetterEntry,
  type Driver,
  type DriverMessage,
  deriveProviderKey,
  type ExtendEntry,
  normalizeError,
  type OutgoingMessage,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
} from '@queueport/core/driver';
import { entryId, entryResults } from './batch-results';
import { sqsErrorClassifier } from './classify-error';
import { DeadLetterMover } from './dead-letter-mover';
import { DEDUPLICATION_ID_RULES } from './deduplication-id';
import { HeldMessages } from './held-messages';
import {
  FIFO_ATTRIBUTE,
  fifoMark,
  fromSqsAttributes,
  readFifoMark,
  sqsMessageBytes,
  toSqsAttributes,
} from './message-attributes';
import { fromSqsBody, toSqsBody } from './message-body';
import { type QueueFacts, readQueueFacts } from './queue-facts';
import { type ResolvedOptions, resolveOptions, type SqsDriverOptions, sqsCapabilities } from './sqs-options';

const SYSTEM_ATTRIBUTES: MessageSystemAttributeName[] = [
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'MessageGroupId',
];

/**
 * The port over one SQS queue (standard or FIFO), in the spirit of Go CDK's awssqs driver: a
 * lease is the visibility timeout, settling is the batch calls with one outcome per entry, and
 * what SQS lacks is declared so the Queue can bridge it (delays past 900 s) or guard it (stale
 * receipts). The queue's own attributes, read at open, decide the manifest: FIFO or not, size,
 * retention, redrive.
 *
 * FIFO queues take no per-message delay. A delayed FIFO publish goes out at once with the time
 * it is due in the driver's attribute; a receive that sees it early hides it again until then
 * (ChangeMessageVisibility), together with what follows it in its group, so the group's order
 * holds. That early sight counts as a receive on SQS's side: the driver takes it off the count
 * it reports, and the package README says what it means for a redrive policy.
 */
export class SqsDriver implements Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly #client: SQSClient;
  readonly #facts: QueueFacts;
  readonly #options: ResolvedOptions;
  readonly #ownsClient: boolean;
  readonly #held = new HeldMessages();
  readonly #mover: DeadLetterMover | undefined;
  readonly deadLetter?: (entries: readonly DeadLetterEntry[]) => Promise<SettleOutcome[]>;
  readonly #closing = new AbortController();
  readonly #classify: ReturnType<typeof sqsErrorClassifier>;
  #closed = false;

  /** Finds the queue, reads its attributes and declares what it gives. NOT_FOUND when it does not exist. */
  static async open(options: SqsDriverOptions): Promise<SqsDriver> {
    const where = options.name ?? `sqs:${queueNameOf(options.queue)}`;
    try {
      const queueUrl = /^https?:\/\//.test(options.queue)
        ? options.queue
        : (
            await options.client.send(
              new GetQueueUrlCommand({
                QueueName: options.queue,
                ...(options.accountId ? { QueueOwnerAWSAccountId: options.accountId } : {}),
              }),
            )
          ).QueueUrl;
      if (!queueUrl) throw new QueueError('NOT_FOUND', `${where}: SQS returned no URL for the queue`);
      const facts = await readQueueFacts(options.client, queueUrl);
      return new SqsDriver(options, facts, where);
    } catch (error) {
      throw normalizeError(error, where, sqsErrorClassifier(where));
    }
  }

  private constructor(options: SqsDriverOptions, facts: QueueFacts, name: string) {
    this.name = name;
    this.#client = options.client;
    this.#facts = facts;
    this.#options = resolveOptions(options, facts);
    this.#ownsClient = options.ownsClient ?? false;
    this.#classify = sqsErrorClassifier(name);
    this.capabilities = sqsCapabilities(this.#options, facts);
    if (facts.redrive) {
      const mover = new DeadLetterMover(options.client, facts.redrive.deadLetterArn, name);
      this.#mover = mover;
      // Only where the queue has dead letters: the contract reads its presence as `deadLetter.move`.
      this.deadLetter = (entries) => this.#deadLetter(mover, entries);
    }
  }

  /** The queue's URL, as SQS names it. */
  get queueUrl(): string {
    return this.#facts.queueUrl;
  }

  get fifo(): boolean {
    return this.#facts.fifo;
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    this.#assertOpen();
    const now = Date.now();
    const outcomes = new Array<PublishOutcome>(messages.length);
    const entries: Array<{ index: number; entry: SendMessageBatchRequestEntry; bytes: number }> = [];
    messages.forEach((message, index) => {
      const entry = this.#entryOf(message, now);
      const bytes = sqsMessageBytes(entry.MessageBody!, entry.MessageAttributes ?? {});
      // Only U+FFFE and U+FFFF grow on the way (toSqsBody); everything else was measured by the Queue.
      if (bytes > this.#facts.maxMessageBytes) {
        outcomes[index] = {
          ok: false,
          error: new QueueError('PAYLOAD_TOO_LARGE', `${this.name}: ${bytes} bytes as SQS counts them`, {
            details: { maxBodyBytes: this.capabilities.maxBodyBytes, sizeBytes: bytes },
          }),
        };
      } else entries.push({ index, entry, bytes });
    });
    for (const call of byTotalSize(entries, this.#facts.maxMessageBytes)) {
      const answer = await this.#call((o) =>
        this.#client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.#facts.queueUrl,
            Entries: call.map(({ entry }, i) => ({ ...entry, Id: entryId(i) })),
          }),
          o,
        ),
      );
      const results = entryResults(
        call.length,
        answer.Successful,
        answer.Failed,
        this.name,
        (e) => e.MessageId ?? '',
      );
      results.forEach((result, i) => {
        // SQS answers a FIFO repeat like a first send, so a duplicate stays unknown (no `duplicate`).
        outcomes[call[i]!.index] = result.ok ? { ok: true, messageId: result.value } : result;
      });
    }
    return outcomes;
  }

  #entryOf(message: OutgoingMessage, now: number): SendMessageBatchRequestEntry {
    const attributes: Record<string, MessageAttributeValue> = toSqsAttributes(message.attributes);
    const entry: SendMessageBatchRequestEntry = { Id: '', MessageBody: toSqsBody(message.body) };
    if (this.#facts.fifo) {
      const defaultGroup = message.groupId === undefined;
      if (defaultGroup || message.delaySeconds > 0) {
        const notBefore = message.delaySeconds > 0 ? now + message.delaySeconds * 1000 : 0;
        attributes[FIFO_ATTRIBUTE] = {
          DataType: 'String',
          StringValue: fifoMark({ notBefore, defaultGroup }),
        };
      }
      entry.MessageGroupId =
        message.groupId ??
        this.#options.defaultGroupId ??
        deriveProviderKey(message.eventId, DEDUPLICATION_ID_RULES);
      entry.MessageDeduplicationId = deriveProviderKey(message.dedupeKey, DEDUPLICATION_ID_RULES);
    } else if (message.delaySeconds > 0) {
      entry.DelaySeconds = message.delaySeconds;
    }
    if (Object.keys(attributes).length > 0) entry.MessageAttributes = attributes;
    return entry;
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.#assertOpen();
    const signal = request.signal
      ? AbortSignal.any([request.signal, this.#closing.signal])
      : this.#closing.signal;
    const lease = Math.ceil(request.leaseSeconds);
    // SQS waits whole seconds: never longer than the caller asked.
    const deadline = Date.now() + Math.floor(request.waitSeconds) * 1000;
    for (;;) {
      if (signal.aborted) return [];
      const wait = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
      let received: Message[];
      try {
        const answer = await this.#call(
          (o) =>
            this.#client.send(
              new ReceiveMessageCommand({
                QueueUrl: this.#facts.queueUrl,
                MaxNumberOfMessages: request.maxMessages,
                VisibilityTimeout: lease,
                WaitTimeSeconds: wait,
                MessageAttributeNames: ['All'],
                MessageSystemAttributeNames: SYSTEM_ATTRIBUTES,
                // Older servers (local-aws-sqs) read only the deprecated name.
                AttributeNames: SYSTEM_ATTRIBUTES as never,
              }),
              o,
            ),
          signal,
        );
        received = answer.Messages ?? [];
      } catch (error) {
        // Messages an aborted call had already leased come back when their lease ends.
        if (signal.aborted) return [];
        throw error;
      }
      const due = this.#facts.fifo ? await this.#hideEarly(received) : received;
      if (due.length > 0 || wait === 0 || Date.now() >= deadline) {
        return due.map((message) => this.#toDriverMessage(message, lease));
      }
    }
  }

  /**
   * Leaves out the FIFO messages seen before they are due and hides them until then, with what
   * follows each in its group (visible again at once: their group waits for the early one).
   */
  async #hideEarly(received: Message[]): Promise<Message[]> {
    const now = Date.now();
    const blocked = new Set<string>();
    const due: Message[] = [];
    const hide: Array<{ message: Message; seconds: number }> = [];
    for (const message of received) {
      const group = message.Attributes?.MessageGroupId ?? '';
      const notBefore = readFifoMark(message.MessageAttributes?.[FIFO_ATTRIBUTE])?.notBefore ?? 0;
      if (notBefore > now) {
        blocked.add(group);
        hide.push({ message, seconds: Math.ceil((notBefore - now) / 1000) });
      } else if (blocked.has(group)) {
        hide.push({ message, seconds: 0 });
      } else due.push(message);
    }
    if (hide.length > 0) {
      // If this fails they come back when their lease ends, and are hidden again then.
      await this.#changeVisibility(
        hide.map(({ message, seconds }) => ({ receipt: message.ReceiptHandle!, seconds })),
      ).catch(() => {});
    }
    return due;
  }

  #toDriverMessage(message: Message, lease: number): DriverMessage {
    const receipt = message.ReceiptHandle!;
    if (this.#mover) this.#held.hold(receipt, message, lease);
    const mark = readFifoMark(message.MessageAttributes?.[FIFO_ATTRIBUTE]);
    let receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? 1);
    // A delayed FIFO message first seen before it was due was hidden once: that sight is not a delivery.
    const firstSeen = Number(message.Attributes?.ApproximateFirstReceiveTimestamp ?? 0);
    if (mark && mark.notBefore > 0 && firstSeen > 0 && firstSeen < mark.notBefore) receiveCount -= 1;
    const group = message.Attributes?.MessageGroupId;
    return {
      receipt,
      messageId: message.MessageId ?? '',
      body: fromSqsBody(message.Body ?? ''),
      attributes: fromSqsAttributes(message.MessageAttributes),
      receiveCount: Math.max(1, receiveCount),
      ...(group !== undefined && !mark?.defaultGroup ? { groupId: group } : {}),
    };
  }

  async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    this.#assertOpen();
    const answer = await this.#call((o) =>
      this.#client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.#facts.queueUrl,
          Entries: receipts.map((receipt, i) => ({ Id: entryId(i), ReceiptHandle: receipt })),
        }),
        o,
      ),
    );
    const results = entryResults(
      receipts.length,
      answer.Successful,
      answer.Failed,
      this.name,
      () => undefined,
    );
    return results.map((result, i) => {
      if (result.ok) this.#held.forget(receipts[i]!);
      return result.ok ? { ok: true } : result;
    });
  }

  async release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    this.#assertOpen();
    const outcomes = await this.#changeVisibility(
      entries.map((entry) => ({ receipt: entry.receipt, seconds: entry.delaySeconds })),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) this.#held.forget(entries[i]!.receipt);
    });
    return outcomes;
  }

  async extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    this.#assertOpen();
    const outcomes = await this.#changeVisibility(
      entries.map((entry) => ({ receipt: entry.receipt, seconds: Math.ceil(entry.leaseSeconds) })),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) this.#held.extend(entries[i]!.receipt, entries[i]!.leaseSeconds);
    });
    return outcomes;
  }

  async #deadLetter(mover: DeadLetterMover, entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    this.#assertOpen();
    const moves = entries.map((entry) => ({ message: this.#held.get(entry.receipt), reason: entry.reason }));
    const sent = await mover.send(moves);
    const toDelete = entries.flatMap((entry, i) =>
      sent[i]!.ok ? [{ index: i, receipt: entry.receipt }] : [],
    );
    const deleted = toDelete.length > 0 ? await this.ack(toDelete.map((d) => d.receipt)) : [];
    const outcomes: SettleOutcome[] = sent.map((outcome) => (outcome.ok ? { ok: true } : outcome));
    // A copy is in the dead letters already; the original comes back when its lease ends and is
    // moved again (FIFO dead letters absorb the repeat: same deduplication id).
    toDelete.forEach(({ index }, i) => {
      outcomes[index] = deleted[i]!;
    });
    return outcomes;
  }

  classifyError = (error: unknown): QueueError | undefined => this.#classify(error);

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new QueueError('CLOSED', `${this.name} is closed`));
    if (this.#ownsClient) this.#client.destroy();
  }

  async #changeVisibility(
    entries: ReadonlyArray<{ receipt: string; seconds: number }>,
  ): Promise<SettleOutcome[]> {
    const answer = await this.#call((o) =>
      this.#client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.#facts.queueUrl,
          Entries: entries.map((entry, i) => ({
            Id: entryId(i),
            ReceiptHandle: entry.receipt,
            VisibilityTimeout: entry.seconds,
          })),
        }),
        o,
      ),
    );
    const results = entryResults(
      entries.length,
      answer.Successful,
      answer.Failed,
      this.name,
      () => undefined,
    );
    return results.map((result) => (result.ok ? { ok: true } : result));
  }

  /** Every SQS call, its failure in the port's terms; an aborted call's error is left as it is. */
  async #call<T>(
    run: (options: { abortSignal?: AbortSignal }) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await run(signal ? { abortSignal: signal } : {});
    } catch (error) {
      if (signal?.aborted) throw error;
      throw normalizeError(error, this.name, this.#classify);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new QueueError('CLOSED', `${this.name} is closed`);
  }
}

/** SQS also limits a batch call's total size (to the largest message): greedy groups within it. */
function byTotalSize<T extends { bytes: number }>(entries: readonly T[], limit: number): T[][] {
  const calls: T[][] = [];
  let current: T[] = [];
  let total = 0;
  for (const entry of entries) {
    if (current.length > 0 && total + entry.bytes > limit) {
      calls.push(current);
      current = [];
      total = 0;
    }
    current.push(entry);
    total += entry.bytes;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

function queueNameOf(queue: string): string {
  return queue.slice(queue.lastIndexOf('/') + 1) || queue;
}
