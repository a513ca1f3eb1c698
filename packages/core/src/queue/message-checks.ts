import type { Capabilities } from '../capabilities';
import type { Driver } from '../driver';
import { isWellFormed } from '../envelope/read-json';
import { QueueError } from '../errors';
import { FORBIDDEN_ATTRIBUTE_NAMES, MAX_ATTRIBUTES, RESERVED_ATTRIBUTE_PREFIX } from '../limits';
import { unreadable } from '../options';

const DRIVER_METHODS = ['publish', 'receive', 'ack', 'release', 'close'] as const;

/** A timer past 2^31 - 1 ms fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** What the Queue needs of a driver before it can even read its manifest. */
export function checkDriver(driver: unknown): asserts driver is Driver {
  const candidate = driver as Partial<Record<string, unknown>> | null;
  const problems: string[] = [];
  if (candidate === null || typeof candidate !== 'object') problems.push('driver must be an object');
  else {
    if (candidate.capabilities === null || typeof candidate.capabilities !== 'object') {
      problems.push('driver.capabilities must be an object');
    }
    // The name is in every error and report: an unnamed driver leaves a failure unattributable.
    if (typeof candidate.name !== 'string' || candidate.name.length === 0) {
      problems.push('driver.name must be a non-empty string');
    }
    for (const method of DRIVER_METHODS) {
      if (typeof candidate[method] !== 'function') problems.push(`driver.${method} must be a function`);
    }
    const timeout = candidate.callTimeoutMs;
    if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0 && timeout <= MAX_TIMER_MS)) {
      problems.push(`driver.callTimeoutMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}`);
    }
  }
  if (problems.length > 0) {
    throw new QueueError('INVALID_ARGUMENT', `not a queueport driver: ${problems.join('; ')}`, {
      details: { field: 'driver', problems },
    });
  }
}

/**
 * The entries of a batch argument, read once each into a plain array. Not an array, or an array
 * with a hole (`[a, , b]`), is INVALID_ARGUMENT before anything is sent.
 */
export function entriesOf<T>(entries: readonly T[], method: string, field: string): T[] {
  try {
    return readEntries(entries, method, field);
  } catch (error) {
    if (error instanceof QueueError) throw error;
    throw unreadable(method, `${field}.`, error);
  }
}

function readEntries<T>(entries: readonly T[], method: string, field: string): T[] {
  if (!Array.isArray(entries)) {
    throw new QueueError('INVALID_ARGUMENT', `${method} takes an array`, { details: { field } });
  }
  const length = entries.length;
  const copy: T[] = [];
  for (let index = 0; index < length; index++) {
    if (!Object.hasOwn(entries, index)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `${method}: ${field}[${index}] is a hole in a sparse array; nothing was sent`,
        { details: { field: `${field}[${index}]` } },
      );
    }
    copy.push(entries[index] as T);
  }
  return copy;
}

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

/** Where the provider bounds attributes apart from the body (`maxAttributeBytes`): checked before anything is sent. */
export function checkAttributeBytes(
  attributes: Readonly<Record<string, string>>,
  caps: Capabilities,
  eventId: string,
): void {
  const max = caps.maxAttributeBytes;
  if (max === undefined) return;
  const attributeBytes = messageSizeBytes('', attributes);
  if (attributeBytes > max) {
    throw new QueueError(
      'PAYLOAD_TOO_LARGE',
      `attributes of event ${eventId} take ${attributeBytes} bytes; this queue carries at most ${max} (names and values, UTF-8)`,
      { details: { event_id: eventId, field: 'attributes', attributeBytes, maxAttributeBytes: max } },
    );
  }
}

/**
 * An extension that would end past the hold a receive may keep (`maxHoldSeconds`): refused, so
 * the handler hears that its lease ends rather than the provider ending it unannounced.
 */
export function checkHold(
  endsAt: number,
  holdEndsAt: number,
  caps: Capabilities,
  leaseSeconds: number,
): void {
  if (endsAt <= holdEndsAt) return;
  const remainingSeconds = Math.max(0, Math.floor((holdEndsAt - (endsAt - leaseSeconds * 1000)) / 1000));
  throw new QueueError(
    'INVALID_ARGUMENT',
    `extendLease(${leaseSeconds}) would hold the message past ${caps.maxHoldSeconds} s from its receive, the most this queue allows; ${remainingSeconds} s remain`,
    {
      details: {
        field: 'leaseSeconds',
        reason: 'max-hold',
        maxHoldSeconds: caps.maxHoldSeconds,
        remainingSeconds,
      },
    },
  );
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

/**
 * Checks attributes and returns a copy of exactly what was checked (each value read once).
 * Values must be well-formed strings: a lone surrogate does not survive a provider's UTF-8.
 */
export function checkAttributes(attributes: unknown): Record<string, string> {
  try {
    return readAttributes(attributes);
  } catch (error) {
    // A getter or Proxy trap that throws: a typed refusal, not the caller's own error.
    if (error instanceof QueueError) throw error;
    throw unreadable('attributes', 'attributes.', error);
  }
}

function readAttributes(attributes: unknown): Record<string, string> {
  if (attributes === undefined) return {};
  if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) {
    throw new QueueError('INVALID_ARGUMENT', 'attributes must be an object of string values', {
      details: { field: 'attributes' },
    });
  }
  const entries = Object.entries(attributes);
  const problems: string[] = [];
  if (entries.length > MAX_ATTRIBUTES) problems.push(`at most ${MAX_ATTRIBUTES} attributes are portable`);
  for (const [name, value] of entries) {
    if (!ATTRIBUTE_NAME.test(name) || RESERVED_ATTRIBUTE_PREFIX.test(name)) {
      problems.push(
        `attribute name ${JSON.stringify(name)} must match ${ATTRIBUTE_NAME} and not use a reserved prefix`,
      );
    } else if (FORBIDDEN_ATTRIBUTE_NAMES.includes(name)) {
      // Receive refuses these names, so a message published with one would never be delivered.
      problems.push(
        `attribute name ${JSON.stringify(name)} is not allowed (${FORBIDDEN_ATTRIBUTE_NAMES.join(', ')} are refused on publish and receive)`,
      );
    }
    if (typeof value !== 'string') problems.push(`attribute ${JSON.stringify(name)} must be a string`);
    else if (!isWellFormed(value)) {
      problems.push(`attribute ${JSON.stringify(name)} has a lone surrogate (is not well-formed UTF-16)`);
    }
  }
  if (problems.length > 0) {
    throw new QueueError('INVALID_ARGUMENT', `invalid attributes: ${problems.join('; ')}`, {
      details: { field: 'attributes', problems },
    });
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

const GROUP_ID = /^[\x21-\x7e]{1,128}$/;

export function checkGroupId(groupId: unknown, caps: Capabilities, driverName: string): string | undefined {
  if (groupId === undefined) return undefined;
  if (caps.ordering !== 'fifo-per-group') {
    // Silently dropping the group would silently drop the ordering the application relies on.
    throw new QueueError('INVALID_ARGUMENT', `${driverName} does not order messages by group; omit groupId`, {
      details: { field: 'groupId', ordering: caps.ordering },
    });
  }
  if (typeof groupId !== 'string' || !GROUP_ID.test(groupId)) {
    throw new QueueError('INVALID_ARGUMENT', 'groupId must be 1-128 printable ASCII characters', {
      details: { field: 'groupId' },
    });
  }
  return groupId;
}

export function checkLeaseSeconds(leaseSeconds: unknown, caps: Capabilities, field = 'leaseSeconds'): number {
  const { min, max } = caps.leaseSeconds;
  if (
    typeof leaseSeconds !== 'number' ||
    !Number.isFinite(leaseSeconds) ||
    leaseSeconds < min ||
    leaseSeconds > max
  ) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `${field} must be from ${min} to ${max}; got ${String(leaseSeconds)}`,
      {
        details: { field },
      },
    );
  }
  return leaseSeconds;
}

/**
 * A receive's long poll: a finite number of seconds, 0 or more. A longer wait than the
 * provider's `longPollMaxSeconds` is not refused here: the caller caps it and says so.
 */
export function checkWaitSeconds(waitSeconds: unknown): number {
  if (!(typeof waitSeconds === 'number' && Number.isFinite(waitSeconds) && waitSeconds >= 0)) {
    throw new QueueError('INVALID_ARGUMENT', `waitSeconds must be a number of seconds, 0 or more`, {
      details: { field: 'waitSeconds' },
    });
  }
  return waitSeconds;
}
