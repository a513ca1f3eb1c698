import { DEADLINE_PASSED, DeadlineWheel, normalizeError, QueueError } from '@queueport/core/driver';
import { type Dispatcher, request } from 'undici';
import { classifyInfraiFailure } from './classify-response';
import { safeRequestId, tooLarge } from './response-bounds';

/**
 * One HTTP exchange with Infrai: the package's only HTTP stack, used by every capability call
 * (`InfraiHttp`) and by discovery. It owns what every answer is held to: a deadline over the
 * whole request, body included; a bounded body; no redirect followed; Infrai's
 * `{ ok, data, error, metadata }` envelope read; a failed answer mapped to a QueueError by
 * `classifyInfraiFailure` (Retry-After included); a request id taken only where it reads as one.
 */
export interface ExchangeRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What is being called, first in every message: `infrai:orders queue.ack`, `Infrai discovery at <url>`. */
  where: string;
  /** The request, from the first byte sent to the last byte of the answer, ends by this. */
  timeoutMs: number;
  /** The caller's: its abort ends the request as `aborted by the caller`. */
  signal?: AbortSignal;
  /** The most bytes the answer may have: past it the rest is never read. */
  maxBytes: number;
  /** Configured values no error may show, whatever a server echoes. */
  secrets: readonly string[];
  dispatcher?: Dispatcher;
  /** Told the status and request id as soon as they are known, failure or not: for tracing. */
  onAnswer?: (status: number, requestId: string | undefined) => void;
}

/** Infrai's answer envelope, as far as the wire reads it. */
export interface Envelope {
  ok: boolean;
  data?: unknown;
  error?: { code?: unknown; message?: unknown; hint?: unknown; retryable?: unknown } | null;
  metadata?: { request_id?: unknown };
}

/** A 2xx answer that is not a failure: Infrai's envelope with `ok: true`, or a bare document. */
export interface ExchangeAnswer {
  status: number;
  requestId: string | undefined;
  /** Present when the answer is an envelope (its `ok` is then true). */
  envelope: Envelope | undefined;
  /** The body parsed; `undefined` with `json: false` when it is not JSON. */
  document: unknown;
  json: boolean;
  contentType: string | undefined;
}

/** One timer per slot of deadlines, shared by every exchange in the process (DeadlineWheel in @queueport/core/driver). */
const deadlines = new DeadlineWheel();

export async function exchange(req: ExchangeRequest): Promise<ExchangeAnswer> {
  const { where, timeoutMs, secrets } = req;
  let status = 0;
  let requestId: string | undefined;
  try {
    const answer = await request(req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
      // undici's phase timers stay as a floor under the deadline.
      signal: deadlines.signalFor(timeoutMs, req.signal),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
    });
    status = answer.statusCode;
    requestId = safeRequestId(header(answer.headers['x-request-id']), secrets);
    const text = await readBounded(answer, req.maxBytes);
    if (text === undefined) {
      req.onAnswer?.(status, requestId);
      throw tooLarge(where, req.maxBytes, requestId);
    }
    if (status >= 300 && status < 400) {
      req.onAnswer?.(status, requestId);
      // undici follows no redirect, and an answer from wherever it points is not Infrai's.
      throw new QueueError(
        'UNAVAILABLE',
        `${where}: the server answered a redirect (HTTP ${status}), not Infrai's answer; check the base URL`,
        { retryable: true, details: { httpStatus: status, ...(requestId ? { requestId } : {}) } },
      );
    }
    const { document, json } = parseJson(text);
    const envelope = isEnvelope(document) ? document : undefined;
    requestId = safeRequestId(envelope?.metadata?.request_id, secrets) ?? requestId;
    req.onAnswer?.(status, requestId);
    if (status < 200 || status >= 400 || (envelope && envelope.ok !== true)) {
      // Read from any object: a failed answer that is not quite an envelope still says why.
      const error = isRecord(document) ? document.error : undefined;
      throw classifyInfraiFailure(
        {
          // An envelope saying ok: false under a 2xx is a failure the server mislabelled.
          status: status >= 400 ? status : 502,
          error: isRecord(error) ? error : undefined,
          retryAfter: header(answer.headers['retry-after']),
          requestId,
        },
        where,
        secrets,
      );
    }
    return {
      status,
      requestId,
      envelope,
      document,
      json,
      contentType: header(answer.headers['content-type']),
    };
  } catch (error) {
    if (error instanceof QueueError) throw error;
    if (status === 0) req.onAnswer?.(0, undefined);
    if (isTimeout(error)) {
      throw new QueueError('UNAVAILABLE', `${where}: no answer from Infrai within ${timeoutMs} ms`, {
        retryable: true,
        details: { timeoutMs, ...(requestId ? { requestId } : {}) },
      });
    }
    if (req.signal?.aborted) {
      throw new QueueError('UNAVAILABLE', `${where}: aborted by the caller`, { retryable: false });
    }
    throw normalizeError(error, where, undefined, { secrets });
  }
}

function parseJson(text: string): { document: unknown; json: boolean } {
  try {
    return { document: JSON.parse(text) as unknown, json: true };
  } catch {
    return { document: undefined, json: false };
  }
}

function isEnvelope(document: unknown): document is Envelope {
  return isRecord(document) && typeof document.ok === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTimeout(error: unknown): boolean {
  if (error === DEADLINE_PASSED) return true;
  const { code, name } = (error as { code?: unknown; name?: unknown } | null) ?? {};
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || name === 'TimeoutError';
}

/**
 * The body as text, or undefined once it passes `limit` bytes: then the rest is never read and
 * the connection is dropped. A declared length past the limit is refused before any byte.
 */
async function readBounded(answer: Dispatcher.ResponseData, limit: number): Promise<string | undefined> {
  const { body } = answer;
  const length = header(answer.headers['content-length']);
  const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
  if (declared !== undefined && declared > limit) {
    // undici emits 'error' on a body destroyed before its end; unheard, it would crash the process.
    body.once('error', () => {});
    body.destroy();
    return undefined;
  }
  // undici's parser holds a declared length to it: no more bytes than that can come.
  if (declared !== undefined) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.once('error', () => {});
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

export function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
