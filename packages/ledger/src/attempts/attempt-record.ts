/**
 * One delivery attempt as the ledger keeps it: what happened to one claim of an event, recorded
 * by the settle that ended the claim. Its own table and its own retention (`pruneAttempts`), so a
 * long history of one event never widens the ledger row every claim reads.
 */

/** How the attempt ended, from the settle that recorded it: complete, release, fail. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

/** The start of the receiver's answer, redacted by the caller, cut to MAX_RESPONSE_SAMPLE_CHARS here. */
export interface AttemptResponseSample {
  body: string;
  /** True when the body is not the whole answer: cut by the sender, or here. */
  truncated: boolean;
}

/**
 * What a settle adds to record its attempt (`SettleRequest.attempt`). The claim number and the
 * ambiguity come from the settle itself, so an attempt can never be filed under another claim.
 */
export interface AttemptInput {
  /** Epoch ms at which the attempt began. */
  startedAt: number;
  /** Whole milliseconds the attempt took. */
  durationMs: number;
  /** The receiver's HTTP status, when it answered with one. */
  statusCode?: number | null;
  /**
   * Why it did not succeed, as a short lower-case token ('http', 'timeout', 'connect', 'tls',
   * 'network', …): something to group and count by, never a message. Null for a success.
   */
  errorClass?: string | null;
  /** Already redacted by the caller: the ledger only bounds it and strips control characters. */
  responseSample?: { body: string; truncated?: boolean } | null;
  /** The destination it was sent to (an id, never a URL). */
  destinationId?: string | null;
}

export interface AttemptRecord {
  eventId: string;
  /** The claim number this attempt was made under (1, 2, …); gaps are claims that recorded nothing. */
  attempt: number;
  startedAt: number;
  durationMs: number;
  outcome: AttemptOutcome;
  statusCode: number | null;
  errorClass: string | null;
  /** The settle said the request may have reached the receiver without a usable answer. */
  ambiguous: boolean;
  responseSample: AttemptResponseSample | null;
  destinationId: string | null;
}

/** The longest response sample kept, in UTF-16 code units; a longer one is cut and marked truncated. */
export const MAX_RESPONSE_SAMPLE_CHARS = 2048;
/** Error classes are tokens, not messages: this long at most. */
export const MAX_ERROR_CLASS_CHARS = 32;
/** The webhook package's bound on destination ids. */
export const MAX_ATTEMPT_DESTINATION_ID_CHARS = 256;
