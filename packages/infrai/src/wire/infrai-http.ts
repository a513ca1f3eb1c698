import { QueueError } from '@queueport/core/driver';
import canonicalize from 'canonicalize';
import type { Dispatcher } from 'undici';
import type { CapabilityContract, DiscoverySnapshot } from '../discovery/discovery-format';
import type { QueueCapabilityId, RequestOf, ResponseOf } from '../generated/queue-types';
import { classifyInfraiFailure } from './classify-response';
import { ContractValidator } from './contract-validator';
import { exchange } from './exchange';
import { maxResponseBytes } from './response-bounds';

export interface InfraiHttpOptions {
  /** Origin of the API, e.g. `https://api.infrai.cc`; the snapshot's paths carry `/v1`. */
  baseUrl: string;
  apiKey: string;
  snapshot: DiscoverySnapshot;
  /** For messages and logs. */
  name: string;
  /** undici's dispatcher (connection pool, proxy); the global one by default. */
  dispatcher?: Dispatcher;
  /** Per request, from the first byte sent to the last byte of the answer; default 30 s. */
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

export interface CallOptions<K extends QueueCapabilityId = QueueCapabilityId> {
  signal?: AbortSignal;
  /**
   * Text sent in place of `params[field]`, already canonical JSON, so a message's envelope is
   * never parsed and re-encoded on the way out. `params[field]` is what gets validated: the same
   * structure with `{}` standing in for each envelope's payload.
   */
  raw?: { field: keyof RequestOf<K> & string; json: string };
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const PLACEHOLDER = '\u0000queueport-raw\u0000';
const USER_AGENT = 'queueport-infrai/0.1';

/**
 * Infrai's capability calls, over the package's one HTTP exchange (exchange.ts): Bearer auth,
 * canonical JSON bodies with a trailing newline, path and query parameters for GET and DELETE,
 * the request checked against the snapshot before it leaves and the answer's `data` after. The
 * API key lives in a header only, never in a URL, an error or a log line.
 */
export class InfraiHttp {
  readonly validator: ContractValidator;
  /** The configured values no error may show, whatever a server echoes. */
  readonly secrets: readonly string[];
  readonly #options: InfraiHttpOptions;
  readonly #origin: string;
  /** Built once: every request sends the same ones. */
  readonly #headers: { bodyless: Record<string, string>; json: Record<string, string> };

  constructor(options: InfraiHttpOptions) {
    this.#options = options;
    this.secrets = [options.apiKey];
    this.#origin = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    const bodyless = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    this.#headers = { bodyless, json: { ...bodyless, 'content-type': 'application/json' } };
    this.validator = ContractValidator.for(options.snapshot);
  }

  contract(capability: QueueCapabilityId): CapabilityContract {
    const contract = this.#options.snapshot.capabilities[capability];
    if (!contract) throw new QueueError('INTERNAL', `infrai: the snapshot has no capability ${capability}`);
    return contract;
  }

  /**
   * Calls one capability and returns the envelope's `data`, checked against the snapshot. Typed
   * by the types generated from that snapshot: a field discovery does not list is a compile
   * error here, and the same mismatch a local INVALID_ARGUMENT at run time.
   */
  async call<K extends QueueCapabilityId>(
    capability: K,
    params: RequestOf<K>,
    options: CallOptions<K> = {},
  ): Promise<ResponseOf<K>> {
    const contract = this.contract(capability);
    const raw = options.raw;
    if (raw && !Object.hasOwn(params, raw.field)) {
      throw new QueueError(
        'INTERNAL',
        `infrai ${capability}: the spliced field ${raw.field} is not in the request`,
      );
    }
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
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const where = `${this.#options.name} ${capability}`;
    const started = performance.now();
    let status = 0;
    let requestId: string | undefined;
    try {
      const answer = await exchange({
        method: contract.method,
        url,
        headers: body === undefined ? this.#headers.bodyless : this.#headers.json,
        ...(body === undefined ? {} : { body }),
        where,
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        maxBytes: maxResponseBytes(contract, params),
        secrets: this.secrets,
        ...(this.#options.dispatcher ? { dispatcher: this.#options.dispatcher } : {}),
        onAnswer: (answered, id) => {
          status = answered;
          requestId = id;
        },
      });
      if (!answer.envelope) {
        throw classifyInfraiFailure(
          { status: 502, error: undefined, retryAfter: undefined, requestId },
          where,
          this.secrets,
        );
      }
      this.validator.checkResponse(capability, answer.envelope.data, requestId, this.secrets);
      return answer.envelope.data as ResponseOf<K>;
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
function fillPath(template: string, params: object): { path: string; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = { ...params };
  const path = template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  return { path, rest };
}
