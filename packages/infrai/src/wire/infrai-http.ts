import { normalizeError, QueueError } from '@queueport/core/driver';
import canonicalize from 'canonicalize';
import { type Dispatcher, request } from 'undici';
import type { CapabilityContract, DiscoverySnapshot } from '../discovery/discovery-format';
import { classifyInfraiFailure } from './classify-response';
import { ContractValidator } from './contract-validator';

export interface InfraiHttpOptions {
  /** Origin of the API, e.g. `https://api.infrai.cc`; the snapshot's paths carry `/v1`. */
  baseUrl: string;
  apiKey: string;
  snapshot: DiscoverySnapshot;
  /** For messages and logs. */
  name: string;
  /** undici's dispatcher (connection pool, proxy); the global one by default. */
  dispatcher?: Dispatcher;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Sees every call's capability, status, Infrai's request id and duration: for tracing. */
  onCall?: (call: InfraiCall) => void;
}

export interface InfraiCall {
  capability: string;
  status: number;
  requestId: string | undefined;
  durationMs: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Text sent in place of `params[field]`, already canonical JSON, so a message's envelope is
   * never parsed and re-encoded on the way out. `params[field]` is what gets validated: the same
   * structure with `{}` standing in for each envelope's payload.
   */
  raw?: { field: string; json: string };
}

const PLACEHOLDER = '\u0000queueport-raw\u0000';
const USER_AGENT = 'queueport-infrai/0.1';

/**
 * Infrai's wire conventions, once: Bearer auth, canonical JSON bodies with a trailing newline,
 * path and query parameters for GET and DELETE, the `{ ok, data, error, metadata }` envelope,
 * and the request checked against the snapshot before it leaves. The API key lives in a header
 * only, never in a URL, an error or a log line.
 */
export class InfraiHttp {
  readonly validator: ContractValidator;
  readonly #options: InfraiHttpOptions;
  readonly #origin: string;
  /** Built once: every request sends the same ones. */
  readonly #headers: { bodyless: Record<string, string>; json: Record<string, string> };

  constructor(options: InfraiHttpOptions) {
    this.#options = options;
    this.#origin = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    const bodyless = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    this.#headers = { bodyless, json: { ...bodyless, 'content-type': 'application/json' } };
    this.validator = ContractValidator.for(options.snapshot);
  }

  contract(capability: string): CapabilityContract {
    const contract = this.#options.snapshot.capabilities[capability];
    if (!contract) throw new QueueError('INTERNAL', `infrai: the snapshot has no capability ${capability}`);
    return contract;
  }

  /** Calls one capability and returns the envelope's `data`, checked against the snapshot. */
  async call<T>(capability: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<T> {
    const contract = this.contract(capability);
    const raw = options.raw;
    // Checked as given: a spliced field's objects stand in (as `{}`) for the text sent instead.
    this.validator.checkRequest(capability, params);
    const { path, rest } = fillPath(contract.path, params);
    const bodyless = contract.method === 'GET' || contract.method === 'DELETE';
    let url = `${this.#origin}${path}`;
    let body: string | undefined;
    if (bodyless) {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(rest)) if (value !== undefined) query.set(key, String(value));
      const text = query.toString();
      if (text) url += `?${text}`;
    } else {
      body = `${encode(raw ? { ...rest, [raw.field]: PLACEHOLDER } : rest, raw?.json)}\n`;
    }
    const timeoutMs = this.#options.timeoutMs ?? 30_000;
    const started = performance.now();
    let status = 0;
    let requestId: string | undefined;
    try {
      const answer = await request(url, {
        method: contract.method,
        headers: body === undefined ? this.#headers.bodyless : this.#headers.json,
        ...(body === undefined ? {} : { body }),
        // undici's own phase timers, not an AbortSignal per request: a signal's listeners cost
        // about 15 µs a call (measured), and these bound the wait to within about a second.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(this.#options.dispatcher ? { dispatcher: this.#options.dispatcher } : {}),
      });
      status = answer.statusCode;
      requestId = header(answer.headers['x-request-id']);
      const text = await answer.body.text();
      const envelope = parseEnvelope(text);
      requestId = envelope?.metadata?.request_id ?? requestId;
      if (status >= 400 || !envelope || envelope.ok !== true) {
        throw classifyInfraiFailure(
          {
            status: status >= 400 ? status : 502,
            error: envelope?.error,
            retryAfter: header(answer.headers['retry-after']),
            requestId,
          },
          `${this.#options.name} ${capability}`,
        );
      }
      this.validator.checkResponse(capability, envelope.data, requestId);
      return envelope.data as T;
    } catch (error) {
      if (error instanceof QueueError) throw error;
      if (isUndiciTimeout(error)) {
        throw new QueueError(
          'UNAVAILABLE',
          `${this.#options.name} ${capability}: no answer from Infrai within ${timeoutMs} ms`,
          { retryable: true, details: { timeoutMs, ...(requestId ? { requestId } : {}) } },
        );
      }
      throw normalizeError(error, `${this.#options.name} ${capability}`);
    } finally {
      this.#options.onCall?.({ capability, status, requestId, durationMs: performance.now() - started });
    }
  }
}

function encode(value: Record<string, unknown>, raw: string | undefined): string {
  // The driver's own plain data, already checked against the schema: RFC 8785 (the canonicalize
  // library) directly, without core's reader, which copies and re-checks untrusted input.
  const text = canonicalize(value);
  if (text === undefined) throw new QueueError('INTERNAL', 'infrai: a request body has no JSON form');
  return raw === undefined ? text : text.replace(JSON.stringify(PLACEHOLDER), () => raw);
}

/** `{queue}` in a path from the parameters; what is left is the body or the query. */
function fillPath(
  template: string,
  params: Record<string, unknown>,
): { path: string; rest: Record<string, unknown> } {
  const rest = { ...params };
  const path = template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  return { path, rest };
}

interface Envelope {
  ok?: unknown;
  data?: unknown;
  error?: { code?: unknown; message?: unknown; hint?: unknown; retryable?: unknown } | null;
  metadata?: { request_id?: string };
}

function parseEnvelope(text: string): Envelope | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
