import type { Capabilities } from '../capabilities';
import type { DriverMessage } from '../driver';
import { QueueError } from '../errors';
import { FORBIDDEN_ATTRIBUTE_NAMES } from '../limits';

/**
 * A receive's answer is outside input: the driver translates whatever the provider sent, and a
 * provider (or a message written straight into it) can send anything. These checks run once,
 * here, for every driver, before a message can become a Delivery.
 */

/** Longer receipts than any provider issues (SQS's are about 1 KiB) are not receipts. */
export const MAX_RECEIPT_CHARS = 8_192;
export const MAX_MESSAGE_ID_CHARS = 1_024;
/** Portable attributes are 8 (plus the bridge's own); a provider may add a few of its own. */
export const MAX_DRIVER_ATTRIBUTES = 64;
const MAX_ATTRIBUTE_NAME_CHARS = 256;
const MAX_GROUP_ID_CHARS = 1_024;
/** How many surplus messages one answer gives back at once; the rest come back when their lease ends. */
const MAX_GIVE_BACK = 1_000;
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(FORBIDDEN_ATTRIBUTE_NAMES);

export type DriverFault = 'too-many-messages' | 'duplicate-receipts';

export interface BoundedAnswer {
  /** At most `maxMessages` entries, each with a receipt not seen before in this answer. */
  kept: unknown[];
  /** Receipts of the entries past `maxMessages`, to be given back at once. */
  surplus: string[];
  faults: Array<{ fault: DriverFault; count: number }>;
}

/**
 * Keeps the first `maxMessages` entries of a receive's answer. A repeated receipt is dropped:
 * it names a message already kept, so giving it back would release that one.
 */
export function boundAnswer(answer: unknown, maxMessages: number, driverName: string): BoundedAnswer {
  if (!Array.isArray(answer)) {
    throw new QueueError(
      'INTERNAL',
      `${driverName}: receive answered ${describe(answer)}, not a list of messages`,
      {
        details: { driverFault: true },
      },
    );
  }
  const kept: unknown[] = [];
  const surplus: string[] = [];
  const seen = new Set<string>();
  let extra = 0;
  let duplicates = 0;
  const length = answer.length;
  for (let index = 0; index < length; index++) {
    const entry: unknown = answer[index];
    const receipt = usableReceipt(entry);
    if (receipt !== undefined && seen.has(receipt)) {
      duplicates++;
      continue;
    }
    if (receipt !== undefined) seen.add(receipt);
    if (kept.length < maxMessages) kept.push(entry);
    else {
      extra++;
      if (receipt !== undefined && surplus.length < MAX_GIVE_BACK) surplus.push(receipt);
    }
  }
  const faults: BoundedAnswer['faults'] = [];
  if (extra > 0) faults.push({ fault: 'too-many-messages', count: extra });
  if (duplicates > 0) faults.push({ fault: 'duplicate-receipts', count: duplicates });
  return { kept, surplus, faults };
}

export type CheckedMessage =
  | { ok: true; message: DriverMessage }
  | {
      ok: false;
      error: QueueError;
      /** What the invalid-message report can still name. */
      messageId: string;
      receiveCount: number;
      /** Present when the receipt itself is usable, so the message can be dead-lettered. */
      receipt?: string;
    };

/**
 * Checks every field of one message and returns a copy of what was checked (attributes in a
 * fresh object), read once each. A getter or Proxy that throws is a malformed message too.
 */
export function checkDriverMessage(raw: unknown, caps: Capabilities, driverName: string): CheckedMessage {
  let read: Record<string, unknown>;
  try {
    if (raw === null || typeof raw !== 'object') throw new Error('not an object');
    const source = raw as Record<string, unknown>;
    read = {
      receipt: source.receipt,
      messageId: source.messageId,
      body: source.body,
      parsedBody: source.parsedBody,
      attributes: source.attributes,
      receiveCount: source.receiveCount,
      groupId: source.groupId,
    };
  } catch {
    return invalid(driverName, ['the message is not a readable object'], '(unknown)', 0, undefined);
  }
  const problems: string[] = [];
  const receipt = isBoundedString(read.receipt, MAX_RECEIPT_CHARS) ? read.receipt : undefined;
  if (receipt === undefined)
    problems.push(`receipt must be a non-empty string of at most ${MAX_RECEIPT_CHARS} characters`);
  const messageIdOk = isBoundedString(read.messageId, MAX_MESSAGE_ID_CHARS);
  if (!messageIdOk)
    problems.push(`messageId must be a non-empty string of at most ${MAX_MESSAGE_ID_CHARS} characters`);
  const minCount = caps.receiveCount ? 1 : 0;
  const countOk = Number.isSafeInteger(read.receiveCount) && (read.receiveCount as number) >= minCount;
  if (!countOk) problems.push(`receiveCount must be an integer of at least ${minCount}`);
  if (typeof read.body !== 'string' && read.parsedBody === undefined) problems.push('body must be a string');
  if (read.groupId !== undefined && !isBoundedString(read.groupId, MAX_GROUP_ID_CHARS)) {
    problems.push('groupId must be a non-empty string when present');
  }
  const attributes = checkAttributesOf(read.attributes, problems);
  const messageId = messageIdOk ? (read.messageId as string) : '(unknown)';
  const receiveCount = countOk ? (read.receiveCount as number) : 0;
  if (problems.length > 0 || attributes === undefined) {
    return invalid(driverName, problems, messageId, receiveCount, receipt);
  }
  const message: DriverMessage = {
    receipt: receipt as string,
    messageId,
    body: typeof read.body === 'string' ? read.body : '',
    attributes,
    receiveCount,
    ...(read.parsedBody === undefined ? {} : { parsedBody: read.parsedBody }),
    ...(read.groupId === undefined ? {} : { groupId: read.groupId as string }),
  };
  return { ok: true, message };
}

function checkAttributesOf(value: unknown, problems: string[]): Record<string, string> | undefined {
  const where = 'attributes must be a plain object of string values';
  try {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(where);
      return undefined;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      problems.push(where);
      return undefined;
    }
    const names = Reflect.ownKeys(value);
    if (names.length > MAX_DRIVER_ATTRIBUTES) {
      problems.push(`at most ${MAX_DRIVER_ATTRIBUTES} attributes`);
      return undefined;
    }
    const copy: Record<string, string> = {};
    for (const name of names) {
      if (typeof name !== 'string') {
        problems.push('attribute names must be strings');
        return undefined;
      }
      if (FORBIDDEN_KEYS.has(name) || name.length === 0 || name.length > MAX_ATTRIBUTE_NAME_CHARS) {
        problems.push(`attribute name ${JSON.stringify(name.slice(0, 64))} is not allowed`);
        return undefined;
      }
      const descriptor = Object.getOwnPropertyDescriptor(value, name);
      if (!descriptor || !('value' in descriptor) || typeof descriptor.value !== 'string') {
        problems.push(`attribute ${JSON.stringify(name.slice(0, 64))} must be a string value`);
        return undefined;
      }
      copy[name] = descriptor.value;
    }
    return copy;
  } catch {
    problems.push(where);
    return undefined;
  }
}

function invalid(
  driverName: string,
  problems: readonly string[],
  messageId: string,
  receiveCount: number,
  receipt: string | undefined,
): CheckedMessage {
  const error = new QueueError(
    'INVALID_ENVELOPE',
    `${driverName} handed over a malformed message: ${problems.join('; ')}`,
    { details: { driverFault: true, problems: [...problems] } },
  );
  return { ok: false, error, messageId, receiveCount, ...(receipt === undefined ? {} : { receipt }) };
}

function usableReceipt(entry: unknown): string | undefined {
  try {
    const receipt = (entry as { receipt?: unknown } | null)?.receipt;
    return isBoundedString(receipt, MAX_RECEIPT_CHARS) ? receipt : undefined;
  } catch {
    return undefined;
  }
}

function isBoundedString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
