import {
  type Capabilities,
  checkDriverOptions,
  type DriverOptionsSchema,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  MAX_LONG_POLL_SECONDS,
  QueueError,
  type WholeNumberBounds,
  wholeNumberSchemas,
} from '@queueport/core/driver';
import type { Redis } from 'ioredis';

export interface BullmqDriverOptions {
  /**
   * Your ioredis connection. BullMQ's workers need `maxRetriesPerRequest: null` on it, so that a
   * Redis restart holds commands until it is back instead of failing them. The driver never
   * closes a connection it was given.
   */
  connection: Redis;
  /** The BullMQ queue's name. */
  queueName: string;
  /** BullMQ's key prefix. Default `bull`, as in BullMQ. */
  prefix?: string;
  /**
   * How long a repeated event id is absorbed after its first publish, acked or not (BullMQ's
   * deduplication TTL). Default 300 s, as on SQS and Infrai FIFO queues.
   */
  dedupeWindowSeconds?: number;
  /** How long a completed job stays in Redis. Default, and at least, the dedupe window. */
  keepCompletedSeconds?: number;
  /** How long a failed job (a dead letter) stays in Redis. Default 14 days. */
  keepFailedSeconds?: number;
  /**
   * How often the stalled checker looks for jobs whose lock ran out (a lost lease, a crashed
   * worker) and hands them back. A lost lease comes back within about this long after it ends.
   * Default: a quarter of the shortest lease this driver received with, from 250 ms to 5000 ms,
   * so a lease ends on time whatever its length.
   */
  stalledIntervalMs?: number;
  /**
   * Jobs received more often than this go to the dead letters on their next receive, as an SQS
   * redrive policy does. Default none. The adapter reads it from the queue, where the admin's
   * `createQueue` stored it.
   */
  redriveAfterReceives?: number;
  /** Largest encoded envelope plus attributes. Default 256 KiB, the portable limit. */
  maxBodyBytes?: number;
  /** For messages and logs. Default `bullmq:<queueName>`. */
  name?: string;
}

/** What one receive, publish and settle call carries: a Redis round trip each, so batches pay. */
export const BULLMQ_BATCH = { publish: 500, receive: 50, settle: 100 } as const;
export const DEFAULT_DEDUPE_WINDOW_SECONDS = 300;
export const DEFAULT_KEEP_FAILED_SECONDS = 14 * 86_400;
/** The derived stalled-check interval's bounds: checks cost a script run each, on every queue. */
export const MIN_STALLED_INTERVAL_MS = 250;
export const MAX_STALLED_INTERVAL_MS = 5000;
/** BullMQ keeps a job until it is processed; the manifest needs a finite number (the Queue reports the portable 14 days). */
const TEN_YEARS_SECONDS = 10 * 365 * 86_400;
/** Bodies past this would make every Redis round trip slow for everyone on the server. */
const LARGEST_BODY_BYTES = 16 * 1024 * 1024;

export interface ResolvedOptions {
  prefix: string;
  dedupeWindowSeconds: number;
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
  redriveAfterReceives: number | undefined;
  /** Explicit, or undefined to derive it from the leases in use. */
  stalledIntervalMs: number | undefined;
  maxBodyBytes: number;
}

/**
 * Each whole-number option's bounds, once: core's option reader checks them on the driver's
 * options, and the URL grammar on a bullmq:// URL's.
 */
export const BULLMQ_OPTION_BOUNDS = {
  dedupeWindowSeconds: { min: 1 },
  keepCompletedSeconds: { min: 0 },
  keepFailedSeconds: { min: 0 },
  redriveAfterReceives: { min: 1 },
  stalledIntervalMs: { min: 10 },
  maxBodyBytes: { min: 1024, max: LARGEST_BODY_BYTES },
} as const satisfies Record<string, WholeNumberBounds>;

/** The driver's options as core's option reader checks them. */
export const bullmqOptionsSchema: DriverOptionsSchema = {
  type: 'object',
  properties: {
    // Checked by the driver itself, with messages of their own (a connection is no JSON).
    connection: {},
    queueName: {},
    name: { type: 'string' },
    prefix: { type: 'string', minLength: 1, pattern: '^[^:]*$' },
    ...wholeNumberSchemas(BULLMQ_OPTION_BOUNDS),
  },
};

export function resolveOptions(
  given: Omit<BullmqDriverOptions, 'connection' | 'queueName'>,
): ResolvedOptions {
  const options = checkDriverOptions('BullMQ driver options', bullmqOptionsSchema, given);
  const dedupeWindowSeconds = options.dedupeWindowSeconds ?? DEFAULT_DEDUPE_WINDOW_SECONDS;
  const keepCompletedSeconds = options.keepCompletedSeconds ?? dedupeWindowSeconds;
  if (keepCompletedSeconds < dedupeWindowSeconds) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `keepCompletedSeconds (${keepCompletedSeconds}) may not be shorter than the dedupe window (${dedupeWindowSeconds} s)`,
      { details: { field: 'keepCompletedSeconds' } },
    );
  }
  return {
    prefix: options.prefix ?? 'bull',
    dedupeWindowSeconds,
    keepCompletedSeconds,
    keepFailedSeconds: options.keepFailedSeconds ?? DEFAULT_KEEP_FAILED_SECONDS,
    redriveAfterReceives: options.redriveAfterReceives,
    stalledIntervalMs: options.stalledIntervalMs,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
  };
}

/** What BullMQ gives, declared as it is: see the package README for each line. */
export function bullmqCapabilities(options: ResolvedOptions): Capabilities {
  return {
    maxBodyBytes: options.maxBodyBytes,
    // Delays are native to the millisecond, 7 days included; the Queue enforces the maximum.
    delay: { maxSeconds: MAX_DELAY_SECONDS, nativeMaxSeconds: MAX_DELAY_SECONDS, fractional: true },
    // A deduplicated add answers with the holder's job id, not the one asked for: a true signal.
    dedupe: { kind: 'window', windowSeconds: options.dedupeWindowSeconds, reportsDuplicates: true },
    // Open-source BullMQ has no message groups; one consumer taking one job at a time sees add order.
    ordering: 'fifo-single-consumer',
    leaseExtension: true,
    leaseSeconds: { min: 1, max: 43_200 },
    longPollMaxSeconds: MAX_LONG_POLL_SECONDS,
    receiveCount: true,
    retentionSeconds: TEN_YEARS_SECONDS,
    batch: { ...BULLMQ_BATCH },
    // A lock taken by a later receive has another token: BullMQ refuses the old one.
    staleReceipt: 'rejected',
    // Failed jobs are the dead letters; stalls never fail a job (maxStalledCount is unbounded),
    // the driver's redrive count does.
    deadLetter: { move: true, redriveAfterReceives: options.redriveAfterReceives ?? null },
  };
}

/**
 * How often to look for jobs whose lock ran out, for a lease of `lockMs`: the explicit option, or
 * a quarter of the lease within bounds. A lost lease then comes back within about a quarter lease
 * of its end, not BullMQ's fixed 30 s nor a fixed 5 s that a 1 s lease would wait out five times.
 */
export function stalledIntervalFor(options: ResolvedOptions, lockMs: number): number {
  return (
    options.stalledIntervalMs ??
    Math.min(MAX_STALLED_INTERVAL_MS, Math.max(MIN_STALLED_INTERVAL_MS, Math.round(lockMs / 4)))
  );
}
