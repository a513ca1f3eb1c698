import { QueueError } from '../errors';
import { MAX_BODY_BYTES, MAX_DELAY_SECONDS, MAX_LONG_POLL_SECONDS, MAX_RETENTION_SECONDS } from '../limits';
import type { Capabilities } from './capabilities';

export interface PortableLimits {
  /** Defaults to the portable 256 KB, so an application never relies on one provider's larger limit. */
  maxBodyBytes?: number;
  /** Defaults to the portable 7 days. */
  maxDelaySeconds?: number;
}

/**
 * The manifest the Queue enforces: the driver's, narrowed to the portable limits. A driver that
 * allows 1 MiB (SQS) or unbounded bodies (BullMQ) still gets 256 KB, so moving off it is safe;
 * one that keeps messages for longer than the portable 14 days (BullMQ keeps a job until it is
 * processed) reports 14 days, all that portable code may count on.
 * Where the Queue bridges long delays, `reservedBytes` (the bridge's own attribute) comes off
 * the driver's body limit, so a bridged hop always fits what the provider accepts.
 */
export function effectiveCapabilities(
  driver: Capabilities,
  limits: PortableLimits = {},
  bridgeReservedBytes = 0,
): Capabilities {
  const maxSeconds = Math.min(driver.delay.maxSeconds, limits.maxDelaySeconds ?? MAX_DELAY_SECONDS);
  const nativeMaxSeconds = Math.min(driver.delay.nativeMaxSeconds, maxSeconds);
  const reserved = nativeMaxSeconds < maxSeconds ? bridgeReservedBytes : 0;
  const maxBodyBytes = Math.min(driver.maxBodyBytes - reserved, limits.maxBodyBytes ?? MAX_BODY_BYTES);
  return {
    ...driver,
    maxBodyBytes,
    delay: { ...driver.delay, maxSeconds, nativeMaxSeconds },
    longPollMaxSeconds: Math.min(driver.longPollMaxSeconds, MAX_LONG_POLL_SECONDS),
    retentionSeconds: Math.min(driver.retentionSeconds, MAX_RETENTION_SECONDS),
  };
}

const DEDUPE_KINDS: ReadonlyArray<Capabilities['dedupe']['kind']> = ['window', 'while-retained', 'none'];
const ORDERINGS: ReadonlyArray<Capabilities['ordering']> = ['fifo-per-group', 'fifo-single-consumer', 'none'];

/** Catches a driver whose manifest contradicts itself before it misleads the Queue or the suite. */
export function assertCapabilities(caps: Capabilities, driverName: string): void {
  const problems: string[] = [];
  const positive = (value: number, name: string) => {
    if (!(Number.isFinite(value) && value > 0)) problems.push(`${name} must be a positive number`);
  };
  const count = (value: number, name: string) => {
    if (!(Number.isInteger(value) && value >= 1)) problems.push(`${name} must be an integer >= 1`);
  };
  positive(caps.maxBodyBytes, 'maxBodyBytes');
  positive(caps.retentionSeconds, 'retentionSeconds');
  if (caps.maxAttributeBytes !== undefined) count(caps.maxAttributeBytes, 'maxAttributeBytes');
  if (caps.maxHoldSeconds !== undefined) {
    positive(caps.maxHoldSeconds, 'maxHoldSeconds');
    // A receive's own lease is a hold: one longer than the maximum could never be granted whole.
    if (caps.maxHoldSeconds < caps.leaseSeconds.max)
      problems.push('maxHoldSeconds is below leaseSeconds.max');
  }
  count(caps.batch?.publish, 'batch.publish');
  count(caps.batch?.receive, 'batch.receive');
  count(caps.batch?.settle, 'batch.settle');
  if (caps.batch?.publishBytes !== undefined) count(caps.batch.publishBytes, 'batch.publishBytes');
  if (!(caps.delay.maxSeconds >= 0)) problems.push('delay.maxSeconds must be >= 0');
  if (!(caps.delay.nativeMaxSeconds >= 0)) problems.push('delay.nativeMaxSeconds must be >= 0');
  if (caps.delay.nativeMaxSeconds > caps.delay.maxSeconds) {
    problems.push('delay.nativeMaxSeconds exceeds delay.maxSeconds');
  }
  if (caps.delay.nativeMaxSeconds < caps.delay.maxSeconds && caps.delay.nativeMaxSeconds < 1) {
    problems.push('delay.nativeMaxSeconds must be at least 1 s for the Queue to bridge longer delays');
  }
  if (!(caps.leaseSeconds.min >= 0 && caps.leaseSeconds.max >= caps.leaseSeconds.min)) {
    problems.push('leaseSeconds must satisfy 0 <= min <= max');
  }
  if (!(caps.longPollMaxSeconds >= 0)) problems.push('longPollMaxSeconds must be >= 0');
  if (!DEDUPE_KINDS.includes(caps.dedupe?.kind)) {
    problems.push(`dedupe.kind must be one of ${DEDUPE_KINDS.map((k) => `'${k}'`).join(', ')}`);
  }
  if (caps.dedupe?.kind === 'window') positive(caps.dedupe.windowSeconds, 'dedupe.windowSeconds');
  const reports = caps.dedupe?.reportsDuplicates;
  if (reports !== undefined && typeof reports !== 'boolean') {
    problems.push('dedupe.reportsDuplicates must be a boolean when present');
  }
  if (reports === true && (caps.dedupe.kind as string) === 'none') {
    problems.push("dedupe.reportsDuplicates cannot be true where dedupe.kind is 'none'");
  }
  if (!ORDERINGS.includes(caps.ordering)) {
    problems.push(`ordering must be one of ${ORDERINGS.map((o) => `'${o}'`).join(', ')}`);
  }
  if (caps.staleReceipt !== 'rejected' && caps.staleReceipt !== 'ignored') {
    problems.push("staleReceipt must be 'rejected' or 'ignored'");
  }
  const redrive = caps.deadLetter?.redriveAfterReceives;
  if (redrive !== null && redrive !== undefined) count(redrive, 'deadLetter.redriveAfterReceives');
  if (redrive === undefined) problems.push('deadLetter.redriveAfterReceives must be a number or null');
  if (problems.length > 0) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${driverName}: inconsistent capabilities: ${problems.join('; ')}`,
    );
  }
}
