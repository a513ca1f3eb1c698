import type { RetryPolicy } from '@queueport/core';
import type { IdempotencyKeyStyle } from './idempotency-key';
import type { RefusalDetails } from './ssrf/destination-refused-error';

/** Where events go, and how: one per endpoint a customer registered. */
export interface Destination {
  /** Stable id: the registry disables by it and logs name it. */
  id: string;
  url: string;
  /**
   * Standard Webhooks secrets (`whsec_` + base64). Several sign each request (rotation);
   * none means unsigned. Never logged and never part of an outcome or error message.
   */
  secrets?: readonly string[];
  /** Per-destination retry policy; unset fields come from the worker's (by default DEFAULT_RETRY_SCHEDULE). */
  retry?: Partial<RetryPolicy>;
  /** Overrides the sender's style for receivers that read the key the other way. */
  idempotencyKeyStyle?: IdempotencyKeyStyle;
  /**
   * Extra headers (e.g. an Authorization the receiver wants). Their values are treated as
   * secrets: redacted from outcome reasons. Names must be RFC 9110 tokens, distinct in any
   * letter case, and not ones the sender owns (`SENDER_OWNED_HEADERS`: framing and hop-by-hop
   * headers, idempotency-key, proxy-*, webhook-*); values visible US-ASCII strings. Anything
   * else is refused at registration, and by `send()` before anything goes out.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * This destination's whole-request timeout, shorter than the sender's `requestTimeoutMs`. A
   * longer one is refused (at registration when the registry knows the sender's, else by `send`
   * as a terminal outcome): the worker's ledger lease is sized from the sender's timeout.
   */
  timeoutMs?: number;
  /** The most sends to this destination in flight at once, per worker. */
  concurrency?: number;
  /** Sends per second to this destination, per worker (a token bucket). */
  rateLimit?: DestinationRateLimit;
  /**
   * Disable the destination once its sends keep failing; its events are then parked in the
   * ledger until it is enabled and resumed. Counted per worker.
   */
  disableAfter?: DisableAfter;
}

export interface DestinationRateLimit {
  /** Tokens added per second; fractions allowed (0.5 = one send every 2 s). */
  perSecond: number;
  /** Sends allowed at once after a quiet spell; default max(1, ceil(perSecond)). */
  burst?: number;
}

export interface DisableAfter {
  /**
   * Failed sends in a row (a `retry` outcome, or a `terminal` one the receiver answered) that
   * disable it; a success starts the count again. Refusals before anything was sent (the SSRF
   * guard, a request that cannot be built) are ours, not the destination's, and do not count.
   */
  consecutiveFailures: number;
  /** And the failures have lasted at least this long (from the first of the run). Default 0. */
  minFailingMs?: number;
}

/** One outbound webhook request. */
export interface WebhookRequest {
  destination: Destination;
  /** The logical event id: sent as Idempotency-Key and as webhook-id. */
  eventId: string;
  /** The exact bytes that are signed and sent; never re-serialised after signing. */
  body: string;
  /** Unix ms used for webhook-timestamp; injectable for tests. Defaults to the sender's now. */
  timestamp?: number;
}

/** The start of the receiver's answer, kept for diagnostics (at most maxResponseBytes). */
export interface ResponseSample {
  body: string;
  /** True when the body was longer than maxResponseBytes (or broke off) and was cut. */
  truncated: boolean;
}

export type DeliveryOutcome =
  /** 2xx. */
  | { kind: 'delivered'; status: number; attemptMs: number; response?: ResponseSample }
  /**
   * 408, 429, 5xx, network errors, timeouts: try again. retryAfterMs is the receiver's
   * Retry-After (429/503 only) as it asked; the retry policy bounds it when the wait is computed.
   */
  | {
      kind: 'retry';
      status?: number;
      reason: string;
      retryAfterMs?: number;
      /**
       * True when the request had left (written whole to a connection) and no usable answer came
       * back: a timeout waiting for the answer, a connection reset or closed after the write, an
       * answer cut off before its status line. The receiver may have acted on it. Absent when
       * nothing was sent (DNS failure, refused connect, connect timeout, a closed sender) or when
       * the receiver answered with a status. The worker records such an attempt as ambiguous.
       */
      ambiguous?: boolean;
      attemptMs: number;
      response?: ResponseSample;
    }
  /** 410 Gone: the destination asked to be disabled. */
  | { kind: 'disable'; status: number; reason: string; attemptMs: number; response?: ResponseSample }
  /**
   * 3xx (redirects are never followed) and other 4xx, refused destinations (SSRF guard) and
   * requests that cannot be built (bad secret, unsendable event id): will never succeed as is.
   */
  | {
      kind: 'terminal';
      status?: number;
      reason: string;
      attemptMs: number;
      response?: ResponseSample;
      /** Set when the SSRF guard refused the destination; no connection was attempted. */
      refusal?: Readonly<RefusalDetails>;
    };

export interface WebhookSender {
  /**
   * Never throws and never rejects: every failure is an outcome. A request that cannot be sent
   * as given (malformed destination, header or event id) is `terminal` before anything goes
   * out; once it may have gone out, a failure is at worst a `retry` with the same key.
   */
  send(request: WebhookRequest, signal?: AbortSignal): Promise<DeliveryOutcome>;
  /**
   * The longest one `send` can take (connect, headers and body included). A ledger lease must
   * outlast it plus a margin, or a second worker may deliver the same event concurrently.
   */
  readonly requestTimeoutMs: number;
  close(): Promise<void>;
}
