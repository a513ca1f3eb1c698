import {
  type Capabilities,
  type Driver,
  type DriverMessage,
  deriveProviderKey,
  MAX_BODY_BYTES,
  type OutgoingMessage,
  type ProviderKeyRules,
  type PublishOutcome,
  QueueError,
  type ReceiveRequest,
  type ReleaseEntry,
  type SettleOutcome,
} from '@queueport/core/driver';
import { type DiscoverySnapshot, SNAPSHOT } from './discovery/discovery-format';
import { assertQueueCapabilities } from './discovery/regions';
import type { ResponseOf } from './generated/queue-types';
import {
  type ContractLimits,
  checkDedupeWindow,
  DEFAULT_BASE_URL,
  type InfraiDriverOptions,
  infraiCapabilities,
  type QueueFacts,
} from './infrai-options';
import { payloadText, unwrapPayload } from './message-payload';
import { queueFactsOf } from './queue-facts';
import { boundedText, confirmSettle, MESSAGE_ID_MAX, receivedMessages } from './received-answers';
import { classifyInfraiFailure } from './wire/classify-response';
import { DEFAULT_TIMEOUT_MS, InfraiHttp } from './wire/infrai-http';

/**
 * The port over one Infrai queue, in REST calls: publish_batch with the event id (or a bridge
 * hop's own key) as each message's idempotency key, consume with the lease as the visibility
 * timeout, ack and nack per receipt. Every request is checked against the discovery snapshot
 * before it is sent, so a field Infrai no longer takes fails here, by name.
 *
 * Infrai documents no attributes, so a message's payload carries the envelope and the
 * attributes side by side (`message-payload.ts`). It documents no lease extension, long poll or
 * "move to the dead letters now": the manifest says so, and the Queue works within it.
 */
export class InfraiDriver implements Driver {
  readonly name: string;
  readonly capabilities: Capabilities;
  /** `timeoutMs`: every call ends by it, body included, so the Queue's own bound comes after. */
  readonly callTimeoutMs: number;
  readonly #http: InfraiHttp;
  readonly #queue: string;

  /** Checks the key, the region and that the queue exists, and reads its settings. */
  static async open(options: InfraiDriverOptions): Promise<InfraiDriver> {
    const snapshot = options.snapshot ?? SNAPSHOT;
    const name = options.name ?? `infrai:${options.queue}`;
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new QueueError('INVALID_ARGUMENT', `${name}: an API key is needed (the option apiKey)`, {
        details: { field: 'apiKey' },
      });
    }
    assertQueueCapabilities(snapshot, options.region, name);
    const timeoutMs = checkTimeout(options.timeoutMs, name);
    const http = new InfraiHttp({
      baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
      apiKey: options.apiKey,
      snapshot,
      name,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      timeoutMs,
      ...(options.onCall ? { onCall: options.onCall } : {}),
    });
    // A name Infrai's schema forbids is refused here, by field, before any call.
    http.validator.checkRequest('queue.delete', { queue: options.queue });
    const listed = await http.call('queue.list', {});
    const facts = queueFactsOf(listed, options.queue);
    if (!facts) throw new QueueError('NOT_FOUND', `${name}: Infrai has no queue named ${options.queue}`);
    return new InfraiDriver(
      http,
      timeoutMs,
      facts,
      limitsOf(snapshot),
      checkDedupeWindow(options.dedupeWindowSeconds),
      name,
    );
  }

  private constructor(
    http: InfraiHttp,
    callTimeoutMs: number,
    facts: QueueFacts,
    limits: ContractLimits,
    dedupeWindowSeconds: number,
    name: string,
  ) {
    this.#http = http;
    this.callTimeoutMs = callTimeoutMs;
    this.#queue = facts.name;
    this.name = name;
    this.capabilities = infraiCapabilities(facts, limits, dedupeWindowSeconds);
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    const outcomes = new Array<PublishOutcome>(messages.length);
    const sent: number[] = [];
    const payloads: string[] = [];
    messages.forEach((message, index) => {
      const payload = payloadText(message.body, message.attributes);
      const bytes = Buffer.byteLength(payload, 'utf8');
      // The Queue measured envelope and attributes; JSON escaping of attribute values can add more.
      if (bytes > MAX_BODY_BYTES) {
        outcomes[index] = {
          ok: false,
          error: new QueueError(
            'PAYLOAD_TOO_LARGE',
            `${this.name}: the payload is ${bytes} bytes on the wire`,
            {
              details: { maxBodyBytes: this.capabilities.maxBodyBytes, sizeBytes: bytes, atLeast: true },
            },
          ),
        };
        return;
      }
      sent.push(index);
      payloads.push(payload);
    });
    if (sent.length === 0) return outcomes;
    const entries = sent.map((index) => {
      const message = messages[index]!;
      return {
        idempotency_key: idempotencyKey(this.#queue, message.dedupeKey),
        payload: {},
        ...(message.delaySeconds > 0 ? { delay_seconds: message.delaySeconds } : {}),
      };
    });
    const answer = await this.#http.call(
      'queue.publish_batch',
      { queue: this.#queue, messages: entries },
      { raw: { field: 'messages', json: batchText(entries, payloads) } },
    );
    // Checked here too: a caller's own snapshot may not say the results are a list.
    const results: unknown[] = Array.isArray(answer?.results) ? answer.results : [];
    sent.forEach((index, i) => {
      const result = results[i] as BatchResult | undefined;
      // Read at the generated types: a field the snapshot renames is a compile error here.
      const ok: boolean | undefined = result?.ok;
      const messageId: string | undefined = result?.message_id;
      const error: BatchResult['error'] = result?.error;
      if (ok === true && boundedText(messageId, MESSAGE_ID_MAX)) {
        outcomes[index] = { ok: true, messageId };
      } else if (ok !== true && error?.code === 'IDEMPOTENCY_CONFLICT') {
        // The key was used for another request within the window: a repeat Infrai absorbed. Its
        // answer names no message, so the key it was absorbed under stands in for the id.
        outcomes[index] = { ok: true, messageId: entries[i]!.idempotency_key };
      } else {
        outcomes[index] = { ok: false, error: entryError(error, this.#http, this.name) };
      }
    });
    return outcomes;
  }

  /**
   * `waitSeconds` is not sent: Infrai documents no long poll (`longPollMaxSeconds: 0`), and the
   * Queue caps an explicit wait to that, so the driver answers at once whatever it is asked.
   */
  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    const answer = await this.#http.call(
      'queue.consume',
      {
        queue: this.#queue,
        max_messages: request.maxMessages,
        visibility_timeout: Math.ceil(request.leaseSeconds),
      },
      request.signal ? { signal: request.signal } : {},
    );
    const messages = receivedMessages(answer, this.name);
    // More than was asked is not an answer the contract allows. The extras are not handed out
    // (nor nacked, which would count toward their redrive): they come back when their
    // visibility timeout ends.
    return messages.slice(0, request.maxMessages).map((message) => {
      const { body, parsed, attributes } = unwrapPayload(message.payload);
      return {
        receipt: message.receipt_handle,
        messageId: message.message_id,
        body,
        // Parsed once, from Infrai's answer: the Queue checks it without parsing `body` again.
        parsedBody: parsed,
        attributes,
        receiveCount: message.delivery_count,
      };
    });
  }

  ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return settleEach(receipts, async (receipt) => {
      const answer = await this.#http.call('queue.ack', {
        queue: this.#queue,
        receipt_handle: receipt,
      });
      confirmSettle(answer, 'queue.ack', this.name);
    });
  }

  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return settleEach(entries, async (entry) => {
      const answer = await this.#http.call('queue.nack', {
        queue: this.#queue,
        receipt_handle: entry.receipt,
        ...(entry.delaySeconds > 0 ? { delay_seconds: entry.delaySeconds } : {}),
      });
      confirmSettle(answer, 'queue.nack', this.name);
    });
  }

  /** Holds no connection of its own (undici's pool is shared) and nothing to flush. */
  async close(): Promise<void> {}
}

/**
 * Infrai's idempotency keys are the project's, not a queue's, and hold 255 characters: the key
 * is the queue's name and the dedupe key (the event id, or a bridge hop's own), made safe by the
 * core key helper. A queue name holds no `/`, so two queues never share a key.
 */
export const IDEMPOTENCY_KEY_RULES: ProviderKeyRules = { maxLength: 255, allowed: /[\x21-\x7e]/ };

export function idempotencyKey(queue: string, dedupeKey: string): string {
  return deriveProviderKey(`${queue}/${dedupeKey}`, IDEMPOTENCY_KEY_RULES);
}

/** The batch's `messages` as canonical JSON, each payload spliced in as the text it already is. */
function batchText(entries: ReadonlyArray<Record<string, unknown>>, payloads: readonly string[]): string {
  return `[${entries
    .map((entry, i) => {
      // Canonical key order: delay_seconds < idempotency_key < payload.
      const delay = entry.delay_seconds === undefined ? '' : `"delay_seconds":${entry.delay_seconds},`;
      return `{${delay}"idempotency_key":${JSON.stringify(entry.idempotency_key)},"payload":${payloads[i]}}`;
    })
    .join(',')}]`;
}

type BatchResult = ResponseOf<'queue.publish_batch'>['results'][number];

/** Settles one call per entry, all at once: Infrai documents no batch ack or nack. */
async function settleEach<T>(
  entries: readonly T[],
  settle: (entry: T) => Promise<unknown>,
): Promise<SettleOutcome[]> {
  return Promise.all(
    entries.map(async (entry): Promise<SettleOutcome> => {
      try {
        await settle(entry);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error as QueueError };
      }
    }),
  );
}

/**
 * A batch entry's error in the port's terms, through the same mapping as a whole call's: the
 * HTTP status Infrai would give that code comes from the snapshot's error list.
 */
function entryError(error: BatchResult['error'], http: InfraiHttp, name: string): QueueError {
  if (!error || typeof error !== 'object') {
    return new QueueError('UNAVAILABLE', `${name}: Infrai confirmed nothing for this message`, {
      retryable: true,
    });
  }
  const status = http.contract('queue.publish_batch').errors.find((e) => e.code === error.code)?.http_status;
  return classifyInfraiFailure(
    { status: status ?? 0, error, retryAfter: undefined, requestId: undefined },
    `${name} queue.publish_batch`,
    http.secrets,
  );
}

/** The limits the snapshot's schemas set, so the manifest follows discovery. */
function limitsOf(snapshot: DiscoverySnapshot): ContractLimits {
  const props = (id: string) =>
    (snapshot.capabilities[id]?.request as { properties?: Record<string, Record<string, unknown>> })
      ?.properties ?? {};
  const publish = props('queue.publish_batch');
  const item =
    (publish.messages?.items as { properties?: Record<string, Record<string, unknown>> })?.properties ?? {};
  return {
    maxDelaySeconds: Number(item.delay_seconds?.maximum ?? 604_800),
    maxLeaseSeconds: Number(props('queue.consume').visibility_timeout?.maximum ?? 43_200),
    publishBatch: Number(publish.messages?.maxItems ?? 1),
    receiveBatch: Number(props('queue.consume').max_messages?.maximum ?? 1),
  };
}

/** Longest a timer holds (2^31 - 1 ms): past it node fires at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

function checkTimeout(value: number | undefined, name: string): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${name}: timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`,
      {
        details: { field: 'timeoutMs' },
      },
    );
  }
  return value;
}
