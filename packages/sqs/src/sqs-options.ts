import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  BRIDGE_RESERVED_BYTES,
  type Capabilities,
  checkDriverOptions,
  type DriverOptionsSchema,
  FIFO_DEDUPE_WINDOW_SECONDS,
  MAX_DELAY_SECONDS,
  MAX_LONG_POLL_SECONDS,
  PROVIDER_ATTRIBUTES,
  QueueError,
  type WholeNumberBounds,
  wholeNumberSchemas,
} from '@queueport/core/driver';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from './call-bounds';
import { ATTRIBUTE_OVERHEAD_BYTES, FIFO_ATTRIBUTE } from './message-attributes';
import type { QueueFacts } from './queue-facts';

export interface SqsDriverOptions {
  /** Your configured SQSClient (region, endpoint, credentials, retries). Never destroyed by queueport. */
  client: SQSClient;
  /** The queue's name (`orders`, `orders.fifo`) or its URL. */
  queue: string;
  /** The account that owns the queue, where it is not yours (a name only). */
  accountId?: string;
  /**
   * The group of every FIFO publish that names none. By default each such message gets a group
   * of its own (its event id's), so ungrouped messages never wait for each other, as the port
   * promises. Give one here to keep ungrouped messages in one strict order instead: each then
   * waits while an earlier one is leased.
   */
  defaultGroupId?: string;
  /**
   * The longest delay SQS is asked to hold, 1 to 900 s: the delay bridge's hop length. Longer
   * delays go hop by hop. Default 900 s, SQS's own limit; tests shorten it to see several hops.
   */
  nativeMaxDelaySeconds?: number;
  /**
   * Largest encoded envelope plus attributes, at most what the queue's MaximumMessageSize leaves
   * once SQS's own per-attribute counting is taken off. Default: all of that. (The Queue still
   * holds applications to the portable 256 KB unless its own `limits` raise it.)
   */
  maxBodyBytes?: number;
  /**
   * How long one SQS call may take in total, the SDK's retries included, 1 to 600,000 ms: a
   * receive gets its long-poll wait on top. Past it the call is aborted and rejects with
   * `UNAVAILABLE`. Default 10,000 ms.
   */
  timeoutMs?: number;
  /**
   * Values masked wherever an error repeats what a server said (the adapter passes the keys it
   * configured the client with). Key-like patterns are masked anyway.
   */
  secrets?: readonly string[];
  /** Whether `close()` also destroys the client: only for one the adapter made. */
  ownsClient?: boolean;
  /** For messages and logs. Default `sqs:<queue name>`. */
  name?: string;
}

/** SQS's limits, per call and per message. */
export const SQS_BATCH = 10;
export const SQS_NATIVE_MAX_DELAY_SECONDS = 900;
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;
/** The FIFO attribute's name and its longest value (16 digits, `:`, a letter); its type is counted below. */
const FIFO_ATTRIBUTE_BYTES = FIFO_ATTRIBUTE.length + 18;

export interface ResolvedOptions {
  defaultGroupId: string | undefined;
  timeoutMs: number;
  secrets: readonly string[];
  nativeMaxDelaySeconds: number;
  maxBodyBytes: number;
}

/**
 * Room left for envelope and attributes once SQS's count of the rest is taken off: a data type
 * (and the byte of an empty value) for each attribute SQS may carry, and on FIFO queues the
 * driver's own attribute.
 */
export function bodyCapacity(facts: QueueFacts): number {
  return (
    facts.maxMessageBytes -
    PROVIDER_ATTRIBUTES * ATTRIBUTE_OVERHEAD_BYTES -
    (facts.fifo ? FIFO_ATTRIBUTE_BYTES : 0)
  );
}

/** The smallest maxBodyBytes: a kilobyte of body beside the bridge's reserve. */
const MIN_BODY_BYTES = 1024 + BRIDGE_RESERVED_BYTES;

/**
 * Each whole-number option's bounds, once: core's option reader checks them on the driver's
 * options, and the URL grammar on an sqs:// URL's. maxBodyBytes is also held to what the
 * queue's MaximumMessageSize leaves, once the queue is read.
 */
export const SQS_OPTION_BOUNDS = {
  nativeMaxDelaySeconds: { min: 1, max: SQS_NATIVE_MAX_DELAY_SECONDS },
  maxBodyBytes: { min: MIN_BODY_BYTES },
  timeoutMs: { min: 1, max: MAX_TIMEOUT_MS },
} as const satisfies Record<string, WholeNumberBounds>;

/** The driver's options as core's option reader checks them. */
export const sqsOptionsSchema: DriverOptionsSchema = {
  type: 'object',
  properties: {
    // A client and the queue are checked where they are used (a client is no JSON).
    client: {},
    queue: {},
    accountId: {},
    ownsClient: { type: 'boolean' },
    name: { type: 'string' },
    defaultGroupId: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
    ...wholeNumberSchemas(SQS_OPTION_BOUNDS),
    secrets: { type: 'array', items: { type: 'string' } },
  },
};

type CheckedOptions = Pick<
  SqsDriverOptions,
  'defaultGroupId' | 'nativeMaxDelaySeconds' | 'maxBodyBytes' | 'timeoutMs' | 'secrets'
>;

const check = (options: CheckedOptions) =>
  checkDriverOptions('SQS driver options', sqsOptionsSchema, options);

export function resolveOptions(given: CheckedOptions, facts: QueueFacts): ResolvedOptions {
  const options = check(given);
  const capacity = bodyCapacity(facts);
  const maxBodyBytes = options.maxBodyBytes ?? capacity;
  if (maxBodyBytes > capacity) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `maxBodyBytes must be at most ${capacity}, what the queue's MaximumMessageSize leaves`,
      { details: { field: 'maxBodyBytes' } },
    );
  }
  return {
    defaultGroupId: options.defaultGroupId,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    secrets: resolveSecrets(options.secrets),
    nativeMaxDelaySeconds: options.nativeMaxDelaySeconds ?? SQS_NATIVE_MAX_DELAY_SECONDS,
    maxBodyBytes,
  };
}

/** What SQS gives, declared as it is: the package README explains each line. */
export function sqsCapabilities(options: ResolvedOptions, facts: QueueFacts): Capabilities {
  return {
    maxBodyBytes: options.maxBodyBytes,
    // Native to 900 s (or the shortened hop); the Queue bridges the rest of the portable 7 days.
    delay: {
      maxSeconds: MAX_DELAY_SECONDS,
      nativeMaxSeconds: options.nativeMaxDelaySeconds,
      fractional: false,
    },
    dedupe: facts.fifo ? { kind: 'window', windowSeconds: FIFO_DEDUPE_WINDOW_SECONDS } : { kind: 'none' },
    ordering: facts.fifo ? 'fifo-per-group' : 'none',
    leaseExtension: true,
    leaseSeconds: { min: 1, max: SQS_MAX_VISIBILITY_SECONDS },
    // SQS counts the 12 hours from the receive, extensions together (ChangeMessageVisibility).
    maxHoldSeconds: SQS_MAX_VISIBILITY_SECONDS,
    longPollMaxSeconds: MAX_LONG_POLL_SECONDS,
    receiveCount: true,
    retentionSeconds: facts.retentionSeconds,
    batch: { publish: SQS_BATCH, receive: SQS_BATCH, settle: SQS_BATCH },
    // DeleteMessage with a stale handle succeeds: the Queue refuses stale settles itself.
    staleReceipt: 'ignored',
    deadLetter: {
      // A move is a send to the redrive policy's queue, then a delete.
      move: facts.redrive !== null,
      redriveAfterReceives: facts.redrive?.maxReceiveCount ?? null,
    },
  };
}

/** Checked before the first call, which already needs the deadline. */
export function resolveTimeout(timeoutMs: number | undefined): number {
  return check({ timeoutMs }).timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

export function resolveSecrets(secrets: readonly string[] | undefined): readonly string[] {
  return (check({ secrets }).secrets ?? []).filter((secret) => secret !== '');
}
