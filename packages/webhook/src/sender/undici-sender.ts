import { performance } from 'node:perf_hooks';
import { QueueError, redactSecrets } from '@queueport/core';
import { DEADLINE_PASSED, DeadlineWheel } from '@queueport/core/driver';
import { checkedDestination } from '../destinations/validate-destination';
import {
  DEFAULT_IDEMPOTENCY_KEY_STYLE,
  formatIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  type IdempotencyKeyStyle,
} from '../idempotency-key';
import type { DeliveryOutcome, Destination, WebhookRequest, WebhookSender } from '../sender-types';
import { WebhookSigner } from '../signing/webhook-signer';
import { findDestinationRefusal } from '../ssrf/destination-refused-error';
import { createGuardedLookup, type Resolver } from '../ssrf/guarded-lookup';
import { createUrlPolicy, type UrlPolicyOptions } from '../ssrf/url-policy';
import { USER_AGENT } from '../version';
import { type Classification, classifyError, classifyResponse } from './classify-response';
import { destinationSecrets } from './destination-secrets';
import { compileOptionValidator, withoutUndefined } from './option-validator';
import { readCappedBody } from './read-capped-body';
import { SendTrackingAgent } from './send-tracking-agent';
import { MAX_DATE_MS, senderOptionsSchema, webhookRequestSchema } from './sender-schemas';

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

const checkOptions = compileOptionValidator(senderOptionsSchema, {
  subject: 'webhook sender options',
  prepare: (value) => {
    const options = withoutUndefined(value) as { ssrf?: unknown } | null;
    if (options === null || typeof options !== 'object' || options.ssrf === undefined) return options;
    return { ...options, ssrf: withoutUndefined(options.ssrf) };
  },
});

const checkRequestShape = compileOptionValidator(webhookRequestSchema, {
  subject: 'webhook request',
  root: 'request',
  prepare: withoutUndefined,
});

/**
 * The undici-based sender: ONE keep-alive Agent shared by every destination, whose connect
 * step runs through the SSRF-guarded lookup. `agent.request` never follows redirects (unlike
 * fetch), so a 3xx reaches the classifier as what it is. The options are checked here, in
 * full, so a bad one fails at startup rather than as a crash or a silent default later.
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  return new UndiciWebhookSender(checkOptions(options) as WebhookSenderOptions);
}

/** A request that passed every check and is ready to go out. */
interface PreparedRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  knownSecrets: readonly string[];
  /** The destination's own timeout where it set a shorter one, else the sender's. */
  timeoutMs: number;
}

/** Whole-request deadlines, one timer per slot of them, shared by every sender in the process. */
const requestDeadlines = new DeadlineWheel();

class UndiciWebhookSender implements WebhookSender {
  readonly requestTimeoutMs: number;
  readonly #agent: SendTrackingAgent;
  readonly #policy: ReturnType<typeof createUrlPolicy>;
  readonly #maxResponseBytes: number;
  readonly #keyStyle: IdempotencyKeyStyle;
  readonly #now: () => number;
  readonly #userAgent: string;
  #closed = false;

  constructor(options: WebhookSenderOptions) {
    const timeout = (name: TimeoutName) => options[name] ?? DEFAULT_SENDER_TIMEOUTS[name];
    this.requestTimeoutMs = timeout('requestTimeoutMs');
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#keyStyle = options.idempotencyKeyStyle ?? DEFAULT_IDEMPOTENCY_KEY_STYLE;
    this.#now = options.now ?? Date.now;
    this.#userAgent = options.userAgent ?? USER_AGENT;
    this.#policy = createUrlPolicy(options.ssrf);
    this.#agent = new SendTrackingAgent({
      connect: {
        timeout: timeout('connectTimeoutMs'),
        lookup: createGuardedLookup(this.#policy.addresses, options.resolver),
      },
      headersTimeout: timeout('headersTimeoutMs'),
      bodyTimeout: timeout('bodyTimeoutMs'),
      connections: options.connectionsPerOrigin ?? 10,
    });
  }

  async send(request: WebhookRequest, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const started = performance.now();
    const progress = { sent: false };
    let classified: Classification;
    try {
      classified = await this.#attempt(request, signal, progress);
    } catch {
      // Unreachable by design. If it happens the request may have gone out, and only a retry
      // (same Idempotency-Key) settles that; throwing would leave the ledger row ambiguous.
      classified = {
        kind: 'retry',
        reason: 'internal error in the webhook sender',
        ...(progress.sent ? { ambiguous: true } : {}),
      };
    }
    return { ...classified, attemptMs: Math.round(performance.now() - started) } as DeliveryOutcome;
  }

  async #attempt(
    request: unknown,
    callerSignal: unknown,
    progress: { sent: boolean },
  ): Promise<Classification> {
    // Everything that can be refused without a connection is refused here, before undici.
    const prepared = this.#prepare(request, callerSignal);
    if ('kind' in prepared) return prepared;
    const { url, headers, body, knownSecrets, timeoutMs } = prepared;
    if (this.#closed) return { kind: 'retry', reason: 'sender is closed' };

    // One timer per slot of deadlines for every request, linked to the caller's signal only
    // while undici listens: a controller, a timer and AbortSignal.any per request were a
    // measured share of the pipeline's cost (AbortSignal.any alone some 40 µs).
    const signal = requestDeadlines.signalFor(
      timeoutMs,
      callerSignal instanceof AbortSignal ? callerSignal : undefined,
    ) as unknown as AbortSignal;
    try {
      const response = await this.#agent.requestTracked(
        { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers, body, signal },
        () => {
          progress.sent = true;
        },
      );
      const classified = classifyResponse(response.statusCode, response.headers, { nowMs: this.#nowAfter() });
      const sample = await readCappedBody(response.body, this.#maxResponseBytes);
      // A receiver may echo our request back (an Authorization header included): redact it.
      return { ...classified, response: { ...sample, body: redactSecrets(sample.body, knownSecrets) } };
    } catch (error) {
      const aborted =
        signal.aborted && signal.reason === DEADLINE_PASSED
          ? 'timeout'
          : callerSignal instanceof AbortSignal && callerSignal.aborted
            ? 'caller'
            : undefined;
      return classifyError(error, {
        aborted,
        requestTimeoutMs: timeoutMs,
        knownSecrets,
        sent: progress.sent,
      });
    }
  }

  /**
   * Checks the request in full and builds what goes on the wire, or says why it cannot go.
   * Nothing here touches the network, so every refusal is final and nothing was sent.
   */
  #prepare(request: unknown, callerSignal: unknown): PreparedRequest | Classification {
    let checked: WebhookRequest;
    try {
      if (callerSignal !== undefined && !(callerSignal instanceof AbortSignal)) {
        throw new QueueError('INVALID_ARGUMENT', 'webhook request: signal must be an AbortSignal', {
          details: { field: 'signal' },
        });
      }
      checked = checkRequestShape(request) as WebhookRequest;
    } catch (error) {
      return refusedBeforeSending(error, []);
    }
    // The SSRF guard speaks first, so its refusals keep their typed `refusal` details.
    const url = (checked.destination as { url?: unknown }).url;
    const verdict = this.#policy.check(typeof url === 'string' ? url : '');
    if (!verdict.allowed) return classifyError(verdict.error);
    let destination: Destination;
    try {
      destination = checkedDestination(checked.destination);
    } catch (error) {
      return refusedBeforeSending(error, []);
    }
    const knownSecrets = destinationSecrets(destination);
    const timeoutMs = destination.timeoutMs ?? this.requestTimeoutMs;
    if (timeoutMs > this.requestTimeoutMs) {
      // The worker sizes its ledger lease from the sender's timeout: a longer send could outlive
      // the lease, and a second worker would send the same event while this one still waits.
      return {
        kind: 'terminal',
        reason: `destination ${destination.id}: timeoutMs ${timeoutMs} is longer than the sender's requestTimeoutMs ${this.requestTimeoutMs}`,
      };
    }
    try {
      const headers = this.#headers(checked, destination);
      return { url: verdict.url, headers, body: checked.body, knownSecrets, timeoutMs };
    } catch (error) {
      return refusedBeforeSending(error, knownSecrets);
    }
  }

  #headers(request: WebhookRequest, destination: Destination): Record<string, string> {
    // No prototype: a header named `__proto__` or `constructor` stays a header.
    const headers: Record<string, string> = Object.create(null);
    headers['content-type'] = 'application/json';
    headers['user-agent'] = this.#userAgent;
    // The destination was checked: no sender-owned name, no duplicate, only valid values.
    for (const [name, value] of Object.entries(destination.headers ?? {})) {
      headers[name.toLowerCase()] = value;
    }
    headers[IDEMPOTENCY_KEY_HEADER] = formatIdempotencyKey(
      request.eventId,
      destination.idempotencyKeyStyle ?? this.#keyStyle,
    );
    if (destination.secrets && destination.secrets.length > 0) {
      const timestamp = request.timestamp ?? this.#now();
      if (!Number.isFinite(timestamp) || timestamp < 0 || timestamp > MAX_DATE_MS) {
        throw new QueueError('INVALID_ARGUMENT', 'webhook sender: now() did not return Unix milliseconds', {
          details: { field: 'now' },
        });
      }
      // Built per request: secrets live on the destination, which may be rotated at any time.
      const signer = new WebhookSigner(destination.secrets);
      Object.assign(headers, signer.sign({ id: request.eventId, timestamp, body: request.body }));
    }
    return headers;
  }

  /** For Retry-After dates, once the request is out: a clock that misbehaves must not undo an outcome. */
  #nowAfter(): number {
    try {
      const now = this.#now();
      return Number.isFinite(now) ? now : Date.now();
    } catch {
      return Date.now();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.close();
  }
}

/** Before anything is sent, an unexpected failure is final too: the same request would fail the same way. */
function refusedBeforeSending(error: unknown, knownSecrets: readonly string[]): Classification {
  if (error instanceof QueueError || findDestinationRefusal(error))
    return classifyError(error, { knownSecrets });
  const message = error instanceof Error ? error.message : 'an unexpected failure';
  return { kind: 'terminal', reason: `request could not be built: ${redactSecrets(message, knownSecrets)}` };
}
