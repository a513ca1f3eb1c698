import type { Capabilities } from '../capabilities';
import { QueueError } from '../errors';
import { MAX_ATTRIBUTES, RESERVED_ATTRIBUTE_PREFIX } from '../limits';

/** Bytes a message occupies at a provider: the encoded envelope plus attribute names and values. */
export function messageSizeBytes(body: string, attributes: Readonly<Record<string, string>> = {}): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  return size;
}

export function checkSize(sizeBytes: number, caps: Capabilities, eventId: string): void {
  if (sizeBytes > caps.maxBodyBytes) {
    throw new QueueError(
      'PAYLOAD_TOO_LARGE',
      `message for event ${eventId} is ${sizeBytes} bytes; the limit is ${caps.maxBodyBytes} (encoded envelope plus attributes)`,
      { details: { event_id: eventId, sizeBytes, maxBodyBytes: caps.maxBodyBytes } },
    );
  }
}

/** One rule for publish delays and release delays, so a provider swap never changes which pass. */
export function checkDelay(delaySeconds: unknown, caps: Capabilities, what = 'delay'): number {
  const { maxSeconds, fractional } = caps.delay;
  const ok =
    typeof delaySeconds === 'number' &&
    Number.isFinite(delaySeconds) &&
    delaySeconds >= 0 &&
    delaySeconds <= maxSeconds &&
    (fractional || Number.isInteger(delaySeconds));
  if (!ok) {
    const unit = fractional ? 'seconds' : 'whole seconds';
    throw new QueueError(
      'DELAY_OUT_OF_RANGE',
      `${what} must be ${unit} from 0 to ${maxSeconds}; got ${String(delaySeconds)}`,
      { details: { delaySeconds: String(delaySeconds), maxSeconds, fractional } },
    );
  }
  return delaySeconds as number;
}

/**
 * A wanted wait, in seconds, as a delay this queue accepts: clamped to [0, max], and rounded up
 * to whole seconds unless the driver declares fractional delays. For computed waits (backoff,
 * Retry-After, another worker's lease), which must never be refused for being a little off.
 */
export function fitDelay(seconds: number, caps: Capabilities): number {
  const { maxSeconds, fractional } = caps.delay;
  const clamped = Math.min(maxSeconds, Math.max(0, Number.isNaN(seconds) ? 0 : seconds));
  return fractional ? clamped : Math.min(maxSeconds, Math.ceil(clamped));
}

const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function checkAttributes(attributes: unknown): Record<string, string> {
  if (attributes === undefined) return {};
  if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) {
    throw new QueueError('INVALID_ARGUMENT', 'attributes must be an object of string values');
  }
  const entries = Object.entries(attributes);
  const problems: string[] = [];
  if (entries.length > MAX_ATTRIBUTES) problems.push(`at most ${MAX_ATTRIBUTES} attributes are portable`);
  for (const [name, value] of entries) {
    if (!ATTRIBUTE_NAME.test(name) || RESERVED_ATTRIBUTE_PREFIX.test(name)) {
      problems.push(`attribute name "${name}" must match ${ATTRIBUTE_NAME} and not use a reserved prefix`);
    }
    if (typeof value !== 'string') problems.push(`attribute "${name}" must be a string`);
  }
  if (problems.length > 0) {
    throw new QueueError('INVALID_ARGUMENT', `invalid attributes: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  return { ...(attributes as Record<string, string>) };
}

const GROUP_ID = /^[\x21-\x7e]{1,128}$/;

export function checkGroupId(groupId: unknown, caps: Capabilities, driverName: string): string | undefined {
  if (groupId === undefined) return undefined;
  if (caps.ordering !== 'fifo-per-group') {
    // Silently dropping the group would silently drop the ordering the application relies on.
    throw new QueueError('INVALID_ARGUMENT', `${driverName} does not order messages by group; omit groupId`, {
      details: { ordering: caps.ordering },
    });
  }
  if (typeof groupId !== 'string' || !GROUP_ID.test(groupId)) {
    throw new QueueError('INVALID_ARGUMENT', 'groupId must be 1-128 printable ASCII characters');
  }
  return groupId;
}

export function checkLeaseSeconds(leaseSeconds: unknown, caps: Capabilities): number {
  const { min, max } = caps.leaseSeconds;
  if (
    typeof leaseSeconds !== 'number' ||
    !Number.isFinite(leaseSeconds) ||
    leaseSeconds < min ||
    leaseSeconds > max
  ) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `leaseSeconds must be from ${min} to ${max}; got ${String(leaseSeconds)}`,
    );
  }
  return leaseSeconds;
}
