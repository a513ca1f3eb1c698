import {
  ChangeMessageVisibilityBatchCommand,
  type ChangeMessageVisibilityBatchCommandOutput,
  DeleteMessageBatchCommand,
  type DeleteMessageBatchCommandOutput,
  GetQueueUrlCommand,
  type GetQueueUrlCommandOutput,
  type MessageAttributeValue,
  type MessageSystemAttributeName,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
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
import { receiveAnswerBytes, SMALL_ANSWER_BYTES, type SqsCommand, sendBounded } from './call-bounds';
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
import { withPublishBytes } from './publish-bytes';
import { type QueueFacts, readQueueFacts } from './queue-facts';
import { type CheckedMessage, checkReceived, type UnreadableMessage } from './received-message';
import {
  type ResolvedOptions,
  resolveOptions,
  resolveSecrets,
  resolveTimeout,
  SQS_BATCH,
  SQS_MAX_VISIBILITY_SECONDS,
  type SqsDriverOptions,
  sqsCapabilities,
} from './sqs-options';

/** What the driver takes as a message id from a publish's answer: printable ASCII, as SQS writes them. */
const MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;

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
 *
 * What SQS answers is outside input: every call has a deadline and a cap on the answer's size,
 * batch results count only for the entry whose id they repeat exactly, and a received message
 * whose fields are not what SQS writes never reaches the application: handed over in the form
 * the Queue refuses (reported, dead-lettered) where the Queue can see the fault, else left to
 * its visibility timeout and SQS's redrive policy.
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
  /** The deadline of one call (a receive's long poll on top), as `timeoutMs` set it. */
  readonly callTimeoutMs: number;

  /** Finds the queue, reads its attributes and declares what it gives. NOT_FOUND when it does not exist. */
  static async open(options: SqsDriverOptions): Promise<SqsDriver> {
    const where = options.name ?? `sqs:${queueNameOf(options.queue)}`;
    const secrets = resolveSecrets(options.secrets);
    const bounds = {
      where,
      timeoutMs: resolveTimeout(options.timeoutMs),
      maxAnswerBytes: SMALL_ANSWER_BYTES,
    };
    try {
      const queueUrl = /^https?:\/\//.test(options.queue)
        ? options.queue
        : (
            await sendBounded<GetQueueUrlCommandOutput>(
              options.client,
              new GetQueueUrlCommand({
                QueueName: options.queue,
                ...(options.accountId ? { QueueOwnerAWSAccountId: options.accountId } : {}),
              }),
              bounds,
            )
          )?.QueueUrl;
      if (typeof queueUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(queueUrl)) {
        throw new QueueError('NOT_FOUND', `${where}: SQS returned no URL for the queue`);
      }
      const facts = await readQueueFacts(options.client, queueUrl, bounds);
      return new SqsDriver(options, facts, where);
    } catch (error) {
      throw normalizeError(error, where, sqsErrorClassifier(where, secrets), { secrets });
    }
  }

  private constructor(options: SqsDriverOptions, facts: QueueFacts, name: string) {
    this.name = name;
    this.#client = options.client;
    this.#facts = facts;
    this.#options = resolveOptions(options, facts);
    this.#ownsClient = options.ownsClient ?? false;
    this.#classify = sqsErrorClassifier(name, this.#options.secrets);
    this.callTimeoutMs = this.#options.timeoutMs;
    this.capabilities = withPublishBytes(sqsCapabilities(this.#options, facts), facts);
    if (facts.redrive) {
      const mover = new DeadLetterMover(options.client, facts.redrive.deadLetterArn, name, {
        timeoutMs: this.#options.timeoutMs,
        secrets: this.#options.secrets,
        signal: this.#closing.signal,
      });
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

  /**
   * One SendMessageBatch: the Queue chunks by `batch.publishBytes`. Only U+FFFE and U+FFFF grow
   * on the way (toSqsBody); a message they push past SQS's limit is refused, and one they push
   * the call past it is answered retryably, so the Queue sends it again in a call of its own.
   */
  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    const now = Date.now();
    const limit = this.#facts.maxMessageBytes;
    const outcomes = new Array<PublishOutcome>(messages.length);
    const call: Array<{ index: number; entry: SendMessageBatchRequestEntry }> = [];
    let total = 0;
    messages.forEach((message, index) => {
      const entry = this.#entryOf(message, now);
      const bytes = sqsMessageBytes(entry.MessageBody!, entry.MessageAttributes ?? {});
      if (bytes > limit) {
        outcomes[index] = {
          ok: false,
          error: new QueueError('PAYLOAD_TOO_LARGE', `${this.name}: ${bytes} bytes as SQS counts them`, {
            details: { maxBodyBytes: this.capabilities.maxBodyBytes, sizeBytes: bytes },
          }),
        };
      } else if (total + bytes > limit) {
        outcomes[index] = {
          ok: false,
          error: new QueueError(
            'UNAVAILABLE',
            `${this.name}: escaped U+FFFE/U+FFFF characters took this call past ${limit} bytes as SQS counts them; the message goes again on its own`,
            { retryable: true, details: { batchBytes: total + bytes, limit } },
          ),
        };
      } else {
        call.push({ index, entry });
        total += bytes;
      }
    });
    if (call.length === 0) return outcomes;
    const answer = await this.#send<SendMessageBatchCommandOutput>(
      new SendMessageBatchCommand({
        QueueUrl: this.#facts.queueUrl,
        Entries: call.map(({ entry }, i) => ({ ...entry, Id: entryId(i) })),
      }),
    );
    const results = entryResults(
      call.length,
      answer?.Successful,
      answer?.Failed,
      this.name,
      (e) => (typeof e.MessageId === 'string' && MESSAGE_ID.test(e.MessageId) ? e.MessageId : undefined),
      this.#options.secrets,
    );
    results.forEach((result, i) => {
      // SQS answers a FIFO repeat like a first send, so a duplicate stays unknown (no `duplicate`).
      outcomes[call[i]!.index] = result.ok ? { ok: true, messageId: result.value } : result;
    });
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
    const signal = request.signal
      ? AbortSignal.any([request.signal, this.#closing.signal])
      : this.#closing.signal;
    const lease = Math.ceil(request.leaseSeconds);
    // SQS waits whole seconds: never longer than the caller asked.
    const deadline = Date.now() + Math.floor(request.waitSeconds) * 1000;
    for (;;) {
      if (signal.aborted) return [];
      const wait = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
      let received: CheckedMessage[];
      let unreadable: UnreadableMessage[];
      try {
        const answer = await this.#send<ReceiveMessageCommandOutput>(
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
          {
            signal,
            timeoutMs: this.#options.timeoutMs + wait * 1000,
            maxAnswerBytes: receiveAnswerBytes(request.maxMessages, this.#facts.maxMessageBytes),
          },
        );
        ({ received, unreadable } = await this.#checkReceived(answer?.Messages, request.maxMessages));
      } catch (error) {
        // Messages an aborted call had already leased come back when their lease ends.
        if (signal.aborted) return [];
        throw error;
      }
      const due = this.#facts.fifo ? await this.#hideEarly(received) : received;
      if (due.length > 0 || unreadable.length > 0 || wait === 0 || Date.now() >= deadline) {
        return [
          ...due.map((message) => this.#toDriverMessage(message, lease)),
          ...unreadable.map((message) => this.#toUnreadable(message, lease)),
        ];
      }
    }
  }

  /**
   * An unreadable message as the Queue refuses it (reported as `invalid-message`, moved to the
   * dead letters where it has a receipt): the Queue checks every field a driver hands over.
   */
  #toUnreadable(message: UnreadableMessage, lease: number): DriverMessage {
    if (this.#mover && message.receipt && message.held) this.#held.hold(message.receipt, message.held, lease);
    return message.view as unknown as DriverMessage;
  }

  /**
   * The messages of an answer that are what SQS writes, at most as many as were asked for and
   * each once. More than asked for go back at once (visible again); unreadable ones are left to
   * their visibility timeout: a receipt that is not one cannot be given back.
   */
  async #checkReceived(
    messages: unknown,
    maxMessages: number,
  ): Promise<{ received: CheckedMessage[]; unreadable: UnreadableMessage[] }> {
    const received: CheckedMessage[] = [];
    const unreadable: UnreadableMessage[] = [];
    if (messages === undefined) return { received, unreadable };
    if (!Array.isArray(messages)) {
      throw new QueueError('UNAVAILABLE', `${this.name}: SQS answered a receive without a message list`);
    }
    const extra: CheckedMessage[] = [];
    const receipts = new Set<string>();
    const ids = new Set<string>();
    for (const value of messages) {
      const checked = checkReceived(value, this.#facts.maxMessageBytes);
      const taken = received.length + unreadable.length;
      if (!checked.ok) {
        const receipt = checked.unreadable?.receipt;
        if (!checked.unreadable || taken >= maxMessages || (receipt && receipts.has(receipt))) continue;
        if (receipt) receipts.add(receipt);
        unreadable.push(checked.unreadable);
        continue;
      }
      const { message } = checked;
      if (receipts.has(message.receipt) || ids.has(message.messageId)) continue;
      receipts.add(message.receipt);
      ids.add(message.messageId);
      (taken < maxMessages ? received : extra).push(message);
    }
    if (extra.length > 0) {
      // SQS never sends more than asked: one call gives back what a real queue could have sent
      // (a batch), the rest of a hostile answer comes back when its lease ends, as does all of
      // it where this call fails.
      const back = extra.slice(0, SQS_BATCH).map((m) => ({ receipt: m.receipt, seconds: 0 }));
      await this.#changeVisibility(back).catch(() => {});
    }
    return { received, unreadable };
  }

  /**
   * Leaves out the FIFO messages seen before they are due and hides them until then, with what
   * follows each in its group (visible again at once: their group waits for the early one).
   */
  async #hideEarly(received: CheckedMessage[]): Promise<CheckedMessage[]> {
    const now = Date.now();
    const blocked = new Set<string>();
    const due: CheckedMessage[] = [];
    const hide: Array<{ message: CheckedMessage; seconds: number }> = [];
    for (const message of received) {
      const group = message.groupId ?? '';
      const notBefore = readFifoMark(message.attributes[FIFO_ATTRIBUTE])?.notBefore ?? 0;
      if (notBefore > now) {
        blocked.add(group);
        hide.push({
          message,
          seconds: Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.ceil((notBefore - now) / 1000)),
        });
      } else if (blocked.has(group)) {
        hide.push({ message, seconds: 0 });
      } else due.push(message);
    }
    for (let i = 0; i < hide.length; i += SQS_BATCH) {
      const chunk = hide.slice(i, i + SQS_BATCH);
      // If this fails they come back when their lease ends, and are hidden again then.
      await this.#changeVisibility(
        chunk.map(({ message, seconds }) => ({ receipt: message.receipt, seconds })),
      ).catch(() => {});
    }
    return due;
  }

  #toDriverMessage(message: CheckedMessage, lease: number): DriverMessage {
    if (this.#mover) this.#held.hold(message.receipt, message.raw, lease);
    const mark = readFifoMark(message.attributes[FIFO_ATTRIBUTE]);
    let receiveCount = message.receiveCount;
    // A delayed FIFO message first seen before it was due was hidden once: that sight is not a delivery.
    const firstSeen = message.firstReceivedAt;
    if (mark && mark.notBefore > 0 && firstSeen > 0 && firstSeen < mark.notBefore) receiveCount -= 1;
    const group = message.groupId;
    return {
      receipt: message.receipt,
      messageId: message.messageId,
      body: fromSqsBody(message.body),
      attributes: fromSqsAttributes(message.attributes),
      receiveCount: Math.max(1, receiveCount),
      ...(group !== undefined && !mark?.defaultGroup ? { groupId: group } : {}),
    };
  }

  async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    const answer = await this.#send<DeleteMessageBatchCommandOutput>(
      new DeleteMessageBatchCommand({
        QueueUrl: this.#facts.queueUrl,
        Entries: receipts.map((receipt, i) => ({ Id: entryId(i), ReceiptHandle: receipt })),
      }),
    );
    const results = entryResults(
      receipts.length,
      answer?.Successful,
      answer?.Failed,
      this.name,
      () => true,
      this.#options.secrets,
    );
    return results.map((result, i) => {
      if (result.ok) this.#held.forget(receipts[i]!);
      return result.ok ? { ok: true } : result;
    });
  }

  async release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    const outcomes = await this.#changeVisibility(
      entries.map((entry) => ({ receipt: entry.receipt, seconds: entry.delaySeconds })),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) this.#held.forget(entries[i]!.receipt);
    });
    return outcomes;
  }

  async extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    const outcomes = await this.#changeVisibility(
      entries.map((entry) => ({ receipt: entry.receipt, seconds: Math.ceil(entry.leaseSeconds) })),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) this.#held.extend(entries[i]!.receipt, entries[i]!.leaseSeconds);
    });
    return outcomes;
  }

  async #deadLetter(mover: DeadLetterMover, entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
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

  /**
   * Ends the SQS requests still out (a call the Queue stopped waiting for) and the client the
   * driver made. The Queue makes no call after this, so nothing here refuses one.
   */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new QueueError('CLOSED', `${this.name} is closed`));
    if (this.#ownsClient) this.#client.destroy();
  }

  async #changeVisibility(
    entries: ReadonlyArray<{ receipt: string; seconds: number }>,
  ): Promise<SettleOutcome[]> {
    const answer = await this.#send<ChangeMessageVisibilityBatchCommandOutput>(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: this.#facts.queueUrl,
        Entries: entries.map((entry, i) => ({
          Id: entryId(i),
          ReceiptHandle: entry.receipt,
          VisibilityTimeout: entry.seconds,
        })),
      }),
    );
    const results = entryResults(
      entries.length,
      answer?.Successful,
      answer?.Failed,
      this.name,
      () => true,
      this.#options.secrets,
    );
    return results.map((result) => (result.ok ? { ok: true } : result));
  }

  /**
   * Every SQS call: bounded in time and size, ended by close(), its failure in the port's terms.
   * A call the caller's signal aborted rejects with that signal's reason, left as it is.
   */
  async #send<T>(
    command: SqsCommand,
    bounds: { signal?: AbortSignal; timeoutMs?: number; maxAnswerBytes?: number } = {},
  ): Promise<T> {
    try {
      return await sendBounded<T>(this.#client, command, {
        where: this.name,
        timeoutMs: bounds.timeoutMs ?? this.#options.timeoutMs,
        maxAnswerBytes: bounds.maxAnswerBytes ?? SMALL_ANSWER_BYTES,
        signal: bounds.signal ?? this.#closing.signal,
      });
    } catch (error) {
      if (bounds.signal?.aborted) throw error;
      throw normalizeError(error, this.name, this.#classify, { secrets: this.#options.secrets });
    }
  }
}

function queueNameOf(queue: string): string {
  return queue.slice(queue.lastIndexOf('/') + 1) || queue;
}
