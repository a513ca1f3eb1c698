import { QueueError } from '../errors';
import { MAX_BODY_BYTES, MAX_DELAY_SECONDS } from '../limits';
import type { Capabilities } from './capabilities';

export interface PortableLimits {
  /** Defaults to the portable 256 KB, so an application never relies on one provider's larger limit. */
  maxBodyBytes?: number;
  /** Defaults to the portable 7 days. */
  maxDelaySeconds?: number;
}

/**
 * The manifest the Queue enforces: the driver's, narrowed to the portable limits. A driver that
 * allows 1 MiB (SQS) or unbounded bodies (BullMQ) still gets 256 KB, so moving off it is safe.
 */
export function effectiveCapabilities(driver: Capabilities, limits: PortableLimits = {}): Capabilities {
  const maxBodyBytes = Math.min(driver.maxBodyBytes, limits.maxBodyBytes ?? MAX_BODY_BYTES);
  const maxSeconds = Math.min(driver.delay.maxSeconds, limits.maxDelaySeconds ?? MAX_DELAY_SECONDS);
  const nativeMaxSeconds = Math.min(driver.delay.nativeMaxSeconds, maxSeconds);
  return { ...driver, maxBodyBytes, delay: { ...driver.delay, maxSeconds, nativeMaxSeconds } };
}

/** Catches a driver whose manifest contradicts itself before it misleads the suite. */
export function assertCapabilities(caps: Capabilities, driverName: string): void {
  const problems: string[] = [];
  const positive = (value: number, name: string) => {
    if (!(Number.isFinite(value) && value > 0)) problems.push(`${name} must be a positive number`);
  };
  positive(caps.maxBodyBytes, 'maxBodyBytes');
  positive(caps.batchMax, 'batchMax');
  positive(caps.retentionSeconds, 'retentionSeconds');
  if (!(caps.delay.maxSeconds >= 0)) problems.push('delay.maxSeconds must be >= 0');
  if (caps.delay.nativeMaxSeconds > caps.delay.maxSeconds) {
    problems.push('delay.nativeMaxSeconds exceeds delay.maxSeconds');
  }
  if (!(caps.leaseSeconds.min >= 0 && caps.leaseSeconds.max >= caps.leaseSeconds.min)) {
    problems.push('leaseSeconds must satisfy 0 <= min <= max');
  }
  if (caps.dedupe.kind === 'window') positive(caps.dedupe.windowSeconds, 'dedupe.windowSeconds');
  if (problems.length > 0) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${driverName}: inconsistent capabilities: ${problems.join('; ')}`,
    );
  }
}
