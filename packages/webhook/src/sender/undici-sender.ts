import { performance } from 'node:perf_hooks';
import { QueueError, redactSecrets } from '@queueport/core';
import { Agent } from 'undici';
import {
  DEFAULT_IDEMPOTENCY_KEY_STYLE,
  formatIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  type IdempotencyKeyStyle,
} from '../idempotency-key';
import type { DeliveryOutcome, Destination, WebhookRequest, WebhookSender } from '../sender-types';
import { secretFragments } from '../signing/signing-secret';
import { WebhookSigner } from '../signing/webhook-signer';
import { createGuardedLookup, type Resolver } from '../ssrf/guarded-lookup';
import { createUrlPolicy, type UrlPolicyOptions } from '../ssrf/url-policy';
import { USER_AGENT } from '../version';
import { type Classification, classifyError, classifyResponse } from './classify-response';
import { readCappedBody } from './read-capped-body';

export interface WebhookSenderOptions {
  /** TCP (and TLS) connect, DNS lookup included. Default 10 s. */
  connectTimeoutMs?: number;
  /** From the request being sent to the response's status line and headers. Default 30 s. */
  headersTimeoutMs?: number;
  /** Longest silence between two chunks of the response body. Default 10 s. */
  bodyTimeoutMs?: number;
  /** The whole attempt, end to end, whatever the phase. Default 30 s (as Svix). */
  requestTimeoutMs?: number;
  /** How much of a response body is read (for diagnostics); the rest is discarded. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Default for destinations that do not set their own. Default `bare`. */
  idempotencyKeyStyle?: IdempotencyKeyStyle;
  /** The SSRF guard. Everything defaults to the safe side: https only, public unicast only. */
  ssrf?: UrlPolicyOptions;
  /** Name resolution for the guard; inject one in tests to simulate what a name resolves to. */
  resolver?: Resolver;
  /** Unix ms; for webhook-timestamp and Retry-After dates. Default Date.now. */
  now?: () => number;
  /** Keep-alive sockets per origin. Default 10. */
  connectionsPerOrigin?: number;
  userAgent?: string;
}

type TimeoutName = 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'requestTimeoutMs';

export const DEFAULT_SENDER_TIMEOUTS: Readonly<Record<TimeoutName, number>> = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
});
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

// The sender owns these; a destination's own headers cannot replace them (a stale
// webhook-signature or a different idempotency key would silently break the receiver).
const RESERVED_HEADERS = new Set([
  IDEMPOTENCY_KEY_HEADER,
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/**
 * The undici-based sender: ONE keep-alive Agent shared by every destination, whose connect
 * step runs through the SSRF-guarded lookup. `agent.request` never follows redirects (unlike
 * fetch), so a 3xx reaches the classifier as what it is.
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  return new UndiciWebhookSender(options);
}

class UndiciWebhookSender implements WebhookSender {
  readonly requestTimeoutMs: number;
  readonly #agent: Agent;
  readonly #policy: ReturnType<typeof createUrlPolicy>;
  readonly #maxResponseBytes: number;
  readonly #keyStyle: IdempotencyKeyStyle;
  readonly #now: () => number;
  readonly #userAgent: string;
  #closed = false;

  constructor(options: WebhookSenderOptions) {
    const timeouts = { ...DEFAULT_SENDER_TIMEOUTS, ...definedOnly(options) };
    for (const [name, value] of Object.entries(timeouts)) {
      if (!Number.isFinite(value) || value <= 0) {
        throw new QueueError('INVALID_ARGUMENT', `${name} must be a positive number of milliseconds`, {
          details: { field: name },
        });
      }
    }
    this.requestTimeoutMs = timeouts.requestTimeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#keyStyle = options.idempotencyKeyStyle ?? DEFAULT_IDEMPOTENCY_KEY_STYLE;
    this.#now = options.now ?? Date.now;
    this.#userAgent = options.userAgent ?? USER_AGENT;
    this.#policy = createUrlPolicy(options.ssrf);
    this.#agent = new Agent({
      connect: {
        timeout: timeouts.connectTimeoutMs,
        lookup: createGuardedLookup(this.#policy.addresses, options.resolver),
      },
      headersTimeout: timeouts.headersTimeoutMs,
      bodyTimeout: timeouts.bodyTimeoutMs,
      connections: options.connectionsPerOrigin ?? 10,
    });
  }

  async send(request: WebhookRequest, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const started = performance.now();
    const classified = await this.#attempt(request, signal);
    return { ...classified, attemptMs: Math.round(performance.now() - started) } as DeliveryOutcome;
  }

  async #attempt(request: WebhookRequest, callerSignal: AbortSignal | undefined): Promise<Classification> {
    const { destination } = request;
    const knownSecrets = [
      ...secretFragments(destination.secrets ?? []),
      ...Object.values(destination.headers ?? {}),
    ];
    if (this.#closed) return { kind: 'retry', reason: 'sender is closed' };

    // Everything that can be refused without a connection is refused here, before undici.
    const verdict = this.#policy.check(destination.url);
    if (!verdict.allowed) return classifyError(verdict.error);

    let headers: Record<string, string>;
    try {
      headers = this.#headers(request, destination);
    } catch (error) {
      return classifyError(error, { knownSecrets });
    }

    // A timer cleared when the attempt ends: AbortSignal.timeout would keep one 30 s timer alive
    // per request long after it finished, which costs real throughput under load.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('request timeout')), this.requestTimeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    const url = verdict.url;
    try {
      const response = await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body: request.body,
        signal,
      });
      const classified = classifyResponse(response.statusCode, response.headers, { nowMs: this.#now() });
      const sample = await readCappedBody(response.body, this.#maxResponseBytes);
      // A receiver may echo our request back (an Authorization header included): redact it.
      return { ...classified, response: { ...sample, body: redactSecrets(sample.body, knownSecrets) } };
    } catch (error) {
      const aborted = timeout.signal.aborted ? 'timeout' : callerSignal?.aborted ? 'caller' : undefined;
      return classifyError(error, { aborted, requestTimeoutMs: this.requestTimeoutMs, knownSecrets });
    } finally {
      clearTimeout(timer);
    }
  }

  #headers(request: WebhookRequest, destination: Destination): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': this.#userAgent,
    };
    for (const [name, value] of Object.entries(destination.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!RESERVED_HEADERS.has(lower)) headers[lower] = value;
    }
    headers[IDEMPOTENCY_KEY_HEADER] = formatIdempotencyKey(
      request.eventId,
      destination.idempotencyKeyStyle ?? this.#keyStyle,
    );
    if (destination.secrets && destination.secrets.length > 0) {
      // Built per request: secrets live on the destination, which may be rotated at any time.
      const signer = new WebhookSigner(destination.secrets);
      Object.assign(
        headers,
        signer.sign({ id: request.eventId, timestamp: request.timestamp ?? this.#now(), body: request.body }),
      );
    }
    return headers;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.close();
  }
}

function definedOnly(options: WebhookSenderOptions): Partial<Record<TimeoutName, number>> {
  const out: Partial<Record<TimeoutName, number>> = {};
  for (const key of Object.keys(DEFAULT_SENDER_TIMEOUTS) as TimeoutName[]) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}
