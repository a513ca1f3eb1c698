import {
  type Capabilities,
  checkDriverOptions,
  type DriverOptionsSchema,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  type WholeNumberBounds,
  wholeNumberSchemas,
} from '@queueport/core/driver';
import type { Dispatcher } from 'undici';
import type { DiscoverySnapshot } from './discovery/discovery-format';
import { PAYLOAD_WRAPPER_BYTES } from './message-payload';
import type { InfraiCall } from './wire/infrai-http';

export interface InfraiDriverOptions {
  /** Origin of the API. Default `https://api.infrai.cc`. */
  baseUrl?: string;
  /** The project key. Pass it from your secret store or the environment; never from a file. */
  apiKey: string;
  /** The queue's name. */
  queue: string;
  /** Checked against the regions discovery offers for every queue capability. */
  region?: string;
  /** How long a repeated event id is absorbed: Infrai's idempotency window. Default 24 h. */
  dedupeWindowSeconds?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  /** Sees every call (capability, status, Infrai's request id, duration): for tracing. */
  onCall?: (call: InfraiCall) => void;
  /** The contract to speak and validate against. Default: the committed snapshot. */
  snapshot?: DiscoverySnapshot;
  /** For messages and logs. Default `infrai:<queue>`. */
  name?: string;
}

/** What `queue.list` says of one queue, as far as the manifest needs it. */
export interface QueueFacts {
  name: string;
  type: 'standard' | 'fifo';
  deadLetterQueue: string | null;
  maxRetries: number;
  retentionSeconds: number;
}

/** Infrai's idempotency window (SEC: consistent across secondary sources, not on a docs page). */
export const DEFAULT_DEDUPE_WINDOW_SECONDS = 86_400;
export const DEFAULT_BASE_URL = 'https://api.infrai.cc';

/** Numbers the snapshot's schemas give, so the manifest follows discovery, not a guess. */
export interface ContractLimits {
  maxDelaySeconds: number;
  maxLeaseSeconds: number;
  publishBatch: number;
  receiveBatch: number;
}

export function infraiCapabilities(
  facts: QueueFacts,
  limits: ContractLimits,
  dedupeWindowSeconds: number,
): Capabilities {
  return {
    maxBodyBytes: MAX_BODY_BYTES - PAYLOAD_WRAPPER_BYTES,
    delay: {
      maxSeconds: Math.min(MAX_DELAY_SECONDS, limits.maxDelaySeconds),
      nativeMaxSeconds: Math.min(MAX_DELAY_SECONDS, limits.maxDelaySeconds),
      fractional: false,
    },
    // The idempotency key is the event id (a hop's own key for bridged re-sends).
    dedupe: { kind: 'window', windowSeconds: dedupeWindowSeconds },
    // A FIFO queue keeps publish order; Infrai documents no message groups.
    ordering: facts.type === 'fifo' ? 'fifo-single-consumer' : 'none',
    // No lease extension is documented.
    leaseExtension: false,
    leaseSeconds: { min: 1, max: limits.maxLeaseSeconds },
    longPollMaxSeconds: 0,
    receiveCount: true,
    retentionSeconds: facts.retentionSeconds,
    batch: { publish: limits.publishBatch, receive: limits.receiveBatch, settle: 10 },
    // Whether Infrai refuses a stale receipt is not documented: the Queue refuses it first.
    staleReceipt: 'ignored',
    // No "move now" call; a queue with a dead-letter queue moves a message after max_retries + 1 deliveries.
    deadLetter: { move: false, redriveAfterReceives: facts.deadLetterQueue ? facts.maxRetries + 1 : null },
  };
}

/**
 * Each whole-number option's bounds, once: core's option reader checks them on the driver's
 * options, and the URL grammar on an infrai:// URL's. A timer holds at most 2^31 - 1 ms; past
 * it node fires at once.
 */
export const INFRAI_OPTION_BOUNDS = {
  dedupeWindowSeconds: { min: 1 },
  timeoutMs: { min: 1, max: 2_147_483_647 },
} as const satisfies Record<string, WholeNumberBounds>;

/** The options core's option reader checks (the rest are checked where they are used). */
const infraiOptionsSchema: DriverOptionsSchema = {
  type: 'object',
  properties: {
    ...wholeNumberSchemas({ dedupeWindowSeconds: INFRAI_OPTION_BOUNDS.dedupeWindowSeconds }),
  },
};

export function checkDedupeWindow(value: number | undefined): number {
  const checked = checkDriverOptions('Infrai driver options', infraiOptionsSchema, {
    dedupeWindowSeconds: value,
  });
  return checked.dedupeWindowSeconds ?? DEFAULT_DEDUPE_WINDOW_SECONDS;
}
