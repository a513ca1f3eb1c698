import { decodeEnvelope, type Envelope, type InlineEnvelope } from '../envelope';
import { scanCanonicalEnvelope } from '../envelope/canonical-text';
import { canonicalText } from '../envelope/digest';
import { prepareEncodedEnvelope } from '../envelope/validate';
import { normalizeError, QueueError } from '../errors';
import { contentAddress } from './content-address';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './file-payload-store';
import type { PayloadProblem, PayloadReference, PayloadStore } from './payload-store';
import { isReservedUri, readStoredPayloadUri, storedPayloadUri } from './reserved-reference';

/** The Queue's `payloadStore` option. */
export interface PayloadStoreOptions {
  store: PayloadStore;
  /**
   * A payload whose canonical JSON is longer than this, in UTF-8 bytes, is put in the store and
   * published as a reference; at most, it is put inline. Must be below the queue's
   * `maxBodyBytes`, so an inline envelope still fits.
   */
  thresholdBytes: number;
  /** The largest payload published or resolved through the store; 8 MiB by default. */
  maxPayloadBytes?: number;
}

/** What a Queue did with stored payloads since it was made: `queue.payloadStoreStats`. */
export interface PayloadStoreStats {
  /** Payloads put in the store at publish. */
  offloaded: number;
  /** References resolved at receive and handed to a handler with their payload. */
  resolved: number;
  /** References that never reached a handler, all reasons together. */
  refused: number;
  /** The same, by reason (`details.payloadProblem` of the error the `invalid-message` event carries). */
  refusedBy: Readonly<Record<PayloadProblem, number>>;
}

/** A publish that goes out as a reference: the bytes to put before it is sent. */
export interface PlannedOffload {
  bytes: Uint8Array;
  reference: PayloadReference;
}

/** The envelope's fields besides its payload: an event id of 512 bytes, a type of 256, a digest. */
const ENVELOPE_FIELDS_BYTES = 4096;

/**
 * Offloading at publish and resolving at receive, for one Queue. Without the option it still
 * recognises the reserved references, so one that reaches a queue without a store fails closed
 * instead of reaching a handler as if the reference were the payload.
 */
export class StoredPayloads {
  readonly #store: PayloadStore | undefined;
  readonly #thresholdBytes: number;
  readonly #maxPayloadBytes: number;
  #offloaded = 0;
  #resolved = 0;
  readonly #refusedBy: Record<PayloadProblem, number> = {
    missing: 0,
    altered: 0,
    'too-large': 0,
    unresolvable: 0,
    unavailable: 0,
  };

  readonly #timeoutMs: number;

  /** `timeoutMs` bounds each put and get, as the Queue bounds each provider call (`callTimeoutMs`). */
  constructor(options: PayloadStoreOptions | undefined, maxBodyBytes: number, timeoutMs: number) {
    this.#store = options?.store;
    this.#timeoutMs = timeoutMs;
    this.#thresholdBytes = options?.thresholdBytes ?? Number.POSITIVE_INFINITY;
    this.#maxPayloadBytes = options?.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    if (options && this.#thresholdBytes >= maxBodyBytes) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `payloadStore.thresholdBytes must be below the queue's maxBodyBytes (${maxBodyBytes}), so a payload kept inline still fits`,
        { details: { field: 'payloadStore.thresholdBytes', maxBodyBytes } },
      );
    }
  }

  get stats(): PayloadStoreStats {
    const refusedBy = { ...this.#refusedBy };
    const refused = Object.values(refusedBy).reduce((sum, n) => sum + n, 0);
    return { offloaded: this.#offloaded, resolved: this.#resolved, refused, refusedBy };
  }

  /** The bound `prepareEncodedEnvelope` reads a publish to: the payload's, where one may be offloaded. */
  maxEnvelopeBytes(maxBodyBytes: number): number {
    return this.#store ? Math.max(maxBodyBytes, this.#maxPayloadBytes + ENVELOPE_FIELDS_BYTES) : maxBodyBytes;
  }

  /**
   * The body to send for a prepared envelope: its own, or a reference envelope when its payload
   * is past the threshold. Synchronous and computed from the digest alone (the address is the
   * content's), so a batch is checked in full, sizes included, before anything is stored.
   */
  plan(envelope: Envelope, body: string): { body: string; offload?: PlannedOffload } {
    if (envelope.payload_ref !== undefined) {
      if (isReservedUri(envelope.payload_ref.uri)) this.#checkPublishedReference(envelope);
      return { body };
    }
    if (!this.#store || Buffer.byteLength(body, 'utf8') <= this.#thresholdBytes) return { body };
    const bytes = Buffer.from(payloadTextOf(envelope, body), 'utf8');
    if (bytes.byteLength <= this.#thresholdBytes) return { body };
    if (bytes.byteLength > this.#maxPayloadBytes) {
      throw new QueueError(
        'PAYLOAD_TOO_LARGE',
        `payload of event ${envelope.event_id} is ${bytes.byteLength} bytes; payloadStore.maxPayloadBytes is ${this.#maxPayloadBytes}`,
        {
          details: {
            event_id: envelope.event_id,
            payloadProblem: 'too-large',
            sizeBytes: bytes.byteLength,
            maxPayloadBytes: this.#maxPayloadBytes,
          },
        },
      );
    }
    const reference = { sha256: envelope.payload_sha256, sizeBytes: bytes.byteLength };
    const { v, event_id, type, occurred_at, payload_sha256 } = envelope;
    const referring = prepareEncodedEnvelope({
      v,
      event_id,
      type,
      occurred_at,
      payload_sha256,
      payload_ref: { uri: storedPayloadUri(reference), sha256: payload_sha256 },
    });
    return { body: referring.body, offload: { bytes, reference } };
  }

  /** Puts the planned payloads, all before any message is sent; the store must answer their address. */
  async store(offloads: ReadonlyArray<PlannedOffload | undefined>): Promise<void> {
    const store = this.#store;
    const planned = offloads.filter((o): o is PlannedOffload => o !== undefined);
    if (!store || planned.length === 0) return;
    await Promise.all(
      planned.map(async ({ bytes, reference }) => {
        let stored: PayloadReference;
        try {
          stored = await bounded(store.put(bytes), this.#timeoutMs, 'put');
        } catch (error) {
          throw normalizeError(error, 'payload store');
        }
        if (stored?.sha256 !== reference.sha256 || stored.sizeBytes !== reference.sizeBytes) {
          throw new QueueError(
            'INTERNAL',
            `the payload store answered another address for payload ${reference.sha256}`,
            { details: { sha256: reference.sha256 } },
          );
        }
      }),
    );
    this.#offloaded += planned.length;
  }

  /** Whether a received envelope carries a reference the Queue must resolve before a handler sees it. */
  isStored(envelope: Envelope): boolean {
    return envelope.payload_ref !== undefined && isReservedUri(envelope.payload_ref.uri);
  }

  /**
   * The envelope with its payload back, and its canonical body (byte for byte what the publish
   * would have sent inline), or a QueueError naming the event and the problem, never the payload.
   * Every failure is counted; the Queue turns it into an `invalid-message`.
   */
  async resolve(envelope: Envelope): Promise<{ envelope: InlineEnvelope; body: string }> {
    try {
      const resolved = await this.#resolve(envelope);
      this.#resolved++;
      return resolved;
    } catch (raw) {
      const error = this.#refusal(envelope, raw);
      this.#refusedBy[error.details.payloadProblem as PayloadProblem]++;
      throw error;
    }
  }

  async #resolve(envelope: Envelope): Promise<{ envelope: InlineEnvelope; body: string }> {
    const uri = envelope.payload_ref!.uri;
    const reference = readStoredPayloadUri(uri);
    if (!reference)
      throw problem('unresolvable', 'its reference is a reserved form this version does not read');
    if (!this.#store)
      throw problem('unresolvable', 'this queue has no payloadStore to resolve its reference');
    if (reference.sizeBytes > this.#maxPayloadBytes) {
      throw problem('too-large', `it is ${reference.sizeBytes} bytes, past payloadStore.maxPayloadBytes`);
    }
    const bytes = await bounded(
      this.#store.get({ sha256: envelope.payload_sha256, sizeBytes: reference.sizeBytes }),
      this.#timeoutMs,
      'get',
    );
    // Checked here too: a store of the application's own may not check what it read.
    const read = contentAddress(bytes);
    if (read.sha256 !== envelope.payload_sha256 || read.sizeBytes !== reference.sizeBytes) {
      throw problem('altered', 'the stored bytes are not the ones its digest names');
    }
    let payloadText: string;
    try {
      payloadText = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw problem('unresolvable', 'the stored bytes are not UTF-8 text');
    }
    const { payload_ref: _ref, ...fields } = envelope;
    const body = spliceCanonical({ ...fields }, payloadText);
    let inline: Envelope;
    try {
      inline = decodeEnvelope(body);
    } catch {
      throw problem('unresolvable', 'the stored bytes are not a canonical JSON payload');
    }
    return { envelope: inline as InlineEnvelope, body };
  }

  /** What a failed resolve becomes: the event id and the problem, the store's message without the payload. */
  #refusal(envelope: Envelope, raw: unknown): QueueError {
    const eventId = envelope.event_id;
    const sha256 = envelope.payload_sha256;
    if (raw instanceof PayloadProblemError) {
      return refusalError(
        raw.problem,
        eventId,
        sha256,
        `payload of event ${eventId} cannot be resolved: ${raw.message}`,
      );
    }
    const error = normalizeError(raw, 'payload store');
    const problem = problemOf(error);
    return refusalError(
      problem,
      eventId,
      sha256,
      `payload of event ${eventId} cannot be resolved (${problem}): ${error.message}`,
      error,
    );
  }

  #checkPublishedReference(envelope: Envelope): void {
    const reason = !readStoredPayloadUri(envelope.payload_ref!.uri)
      ? 'is a reserved form this version does not read'
      : !this.#store
        ? 'needs a payloadStore on this queue, and it has none'
        : undefined;
    if (reason) {
      throw new QueueError(
        'INVALID_ENVELOPE',
        `invalid envelope: payload_ref.uri in the reserved "queueport:" scheme ${reason}`,
        { details: { event_id: envelope.event_id, problems: [`payload_ref.uri ${reason}`] } },
      );
    }
  }
}

/** A store call that does not answer within the bound is UNAVAILABLE; its late answer is dropped. */
async function bounded<T>(call: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new QueueError(
          'UNAVAILABLE',
          `the payload store's ${operation} did not answer within ${timeoutMs} ms`,
          {
            details: { timedOut: true, payloadProblem: 'unavailable' },
          },
        ),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class PayloadProblemError extends Error {
  constructor(
    readonly problem: PayloadProblem,
    message: string,
  ) {
    super(message);
  }
}

function problem(kind: PayloadProblem, message: string): PayloadProblemError {
  return new PayloadProblemError(kind, message);
}

function problemOf(error: QueueError): PayloadProblem {
  const said = error.details.payloadProblem;
  if (said === 'missing' || said === 'altered' || said === 'too-large' || said === 'unavailable') return said;
  if (error.code === 'NOT_FOUND') return 'missing';
  if (error.code === 'PAYLOAD_TOO_LARGE') return 'too-large';
  // A store that fails in a way it does not name may answer next time: kept, never dead-lettered.
  return 'unavailable';
}

/**
 * Missing, altered, too large or unresolvable will not mend: not retryable, so the Queue moves it
 * to the dead letters. Unavailable is retryable: the message comes back when its lease ends.
 */
function refusalError(
  problem: PayloadProblem,
  eventId: string,
  sha256: string,
  message: string,
  cause?: QueueError,
): QueueError {
  const code =
    problem === 'missing'
      ? 'NOT_FOUND'
      : problem === 'too-large'
        ? 'PAYLOAD_TOO_LARGE'
        : problem === 'unavailable'
          ? 'UNAVAILABLE'
          : 'INVALID_ENVELOPE';
  return new QueueError(code, message, {
    retryable: problem === 'unavailable',
    details: { event_id: eventId, payloadProblem: problem, sha256 },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The payload's canonical text inside a canonical body, as `prepareEncodedEnvelope` wrote it. */
function payloadTextOf(envelope: Envelope, body: string): string {
  const span = scanCanonicalEnvelope(body);
  return span ? body.slice(span.payloadStart, span.payloadEnd) : canonicalText(envelope.payload!);
}

/** RFC 8785 of the envelope's fields with the payload's canonical text spliced in under `payload`. */
function spliceCanonical(fields: Record<string, unknown>, payloadText: string): string {
  const keys = [...Object.keys(fields), 'payload'].sort();
  const members = keys.map((key) => {
    const value = key === 'payload' ? payloadText : canonicalText(fields[key] as never);
    return `${JSON.stringify(key)}:${value}`;
  });
  return `{${members.join(',')}}`;
}
