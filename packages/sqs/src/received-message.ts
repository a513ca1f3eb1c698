import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';

/**
 * A received message whose every field was checked: what SQS answered is outside input, and a
 * receipt of `undefined`, a receive count of NaN or an attribute that is a number would reach
 * the application or go back to SQS as they are. The SDK passes JSON on without checking it.
 */
export interface CheckedMessage {
  receipt: string;
  messageId: string;
  body: string;
  receiveCount: number;
  /** Milliseconds since the epoch; 0 where SQS gave none. */
  firstReceivedAt: number;
  groupId: string | undefined;
  attributes: Record<string, MessageAttributeValue>;
  /** The message as received, for a dead-letter move (its body and attributes, re-sent). */
  raw: Message;
}

/**
 * A message the driver cannot hand out as it is, in the form the Queue refuses: the field at
 * fault as SQS sent it, the rest checked. The Queue reports it (`invalid-message`) and, where
 * `receipt` is there, moves it to the dead letters, re-sending `held`.
 */
export interface UnreadableMessage {
  view: Record<string, unknown>;
  receipt: string | undefined;
  held: Message | undefined;
}

export type CheckResult =
  | { ok: true; message: CheckedMessage }
  /** `unreadable` where the Queue can tell what is wrong; otherwise left to its visibility timeout. */
  | { ok: false; problem: string; unreadable?: UnreadableMessage };

/** SQS's receipt handles and ids are printable ASCII; 8 KiB is far past any it writes. */
const TOKEN = /^[\x21-\x7e]{1,8192}$/;
const MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;
const COUNT = /^[1-9][0-9]{0,15}$/;
const TIMESTAMP = /^[0-9]{1,16}$/;
const GROUP_ID = /^[\x21-\x7e]{1,128}$/;
/** SQS's rule for attribute names, and no name an object would read as something else. */
const ATTRIBUTE_NAME = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_.-]{1,256}(?<!\.)$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
/** Prefixes SQS keeps for itself: a message carrying one did not come from a sender. */
const RESERVED_PREFIX = /^(?:aws|amazon)\./i;
const DATA_TYPE = /^(?:String|Number|Binary)(?:\.[\x21-\x7e]{1,250})?$/;
/** SQS's own maximum is 10 message attributes. */
const MAX_ATTRIBUTES = 10;

export function checkReceived(value: unknown, maxMessageBytes: number): CheckResult {
  if (!isRecord(value)) return bad('the message is not an object');
  const message = value as Message;
  const { ReceiptHandle: receipt, MessageId: messageId, Body: body } = message;
  const system = message.Attributes;
  const count = isRecord(system) ? system.ApproximateReceiveCount : undefined;
  const firstSeen = isRecord(system) ? system.ApproximateFirstReceiveTimestamp : undefined;
  const groupId = isRecord(system) ? system.MessageGroupId : undefined;
  const attributes = checkAttributes(message.MessageAttributes);
  const receiptOk = typeof receipt === 'string' && TOKEN.test(receipt);
  const countOk = typeof count === 'string' && COUNT.test(count) && Number.isSafeInteger(Number(count));
  // What the Queue is handed where it can see the fault itself: that field as SQS sent it.
  const unreadable = (problem: string, fault: Record<string, unknown>): CheckResult => {
    const bodyOk = typeof body === 'string' && body !== '';
    const movable = receiptOk && bodyOk;
    const view = {
      receipt: receiptOk ? receipt : undefined,
      messageId,
      body,
      attributes: typeof attributes === 'string' ? {} : plain(attributes),
      receiveCount: countOk ? Number(count) : 1,
      ...fault,
    };
    return {
      ok: false,
      problem,
      unreadable: {
        view,
        receipt: movable ? receipt : undefined,
        held: movable ? sanitized(message, attributes, groupId) : undefined,
      },
    };
  };
  if (!receiptOk) {
    return typeof receipt === 'string' && receipt !== ''
      ? bad('its ReceiptHandle is not a receipt handle')
      : unreadable('its ReceiptHandle is missing', { receipt });
  }
  if (typeof messageId !== 'string' || !MESSAGE_ID.test(messageId)) {
    return typeof messageId === 'string' && messageId !== ''
      ? bad('its MessageId is not an id')
      : unreadable('its MessageId is missing', { messageId });
  }
  if (typeof body !== 'string') return unreadable('its Body is not text', { body });
  if (Buffer.byteLength(body, 'utf8') > maxMessageBytes)
    return bad('its Body is larger than the queue allows');
  if (system !== undefined && !isRecord(system)) return bad('its Attributes are not an object');
  if (!countOk) {
    // The Queue refuses a count that is no whole number from 1, which is what this one is.
    return unreadable('its ApproximateReceiveCount is not a whole number from 1', {
      receiveCount: Number.NaN,
    });
  }
  if (firstSeen !== undefined && (typeof firstSeen !== 'string' || !TIMESTAMP.test(firstSeen))) {
    return bad('its ApproximateFirstReceiveTimestamp is not a time');
  }
  if (groupId !== undefined && (typeof groupId !== 'string' || !GROUP_ID.test(groupId))) {
    return typeof groupId === 'string' && groupId !== ''
      ? bad('its MessageGroupId is not a group id')
      : unreadable('its MessageGroupId is not a group id', { groupId });
  }
  if (typeof attributes === 'string') {
    const textless = textlessAttribute(message.MessageAttributes);
    return textless
      ? unreadable(attributes, { attributes: { [textless.name]: textless.value } })
      : bad(attributes);
  }
  return {
    ok: true,
    message: {
      receipt,
      messageId,
      body,
      receiveCount: Number(count),
      firstReceivedAt: firstSeen === undefined ? 0 : Number(firstSeen),
      groupId,
      attributes,
      raw: message,
    },
  };
}

/** A String attribute whose value is no text, under a name the Queue reads as it is. */
function textlessAttribute(value: unknown): { name: string; value: unknown } | undefined {
  if (!isRecord(value)) return undefined;
  for (const [name, attribute] of Object.entries(value)) {
    if (!ATTRIBUTE_NAME.test(name) || FORBIDDEN_NAMES.has(name)) continue;
    if (!isRecord(attribute)) return { name, value: attribute };
    if (attribute.StringValue !== undefined && typeof attribute.StringValue !== 'string') {
      return { name, value: attribute.StringValue };
    }
  }
  return undefined;
}

/** The checked attributes as the application's strings, for a view the Queue only reports. */
function plain(attributes: Record<string, MessageAttributeValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value.StringValue === 'string') out[name] = value.StringValue;
  }
  return out;
}

/** What a dead-letter move may re-send of an unreadable message: its body and checked fields. */
function sanitized(
  message: Message,
  attributes: Record<string, MessageAttributeValue> | string,
  groupId: unknown,
): Message {
  return {
    MessageId: typeof message.MessageId === 'string' ? message.MessageId : undefined,
    ReceiptHandle: message.ReceiptHandle,
    Body: message.Body,
    MessageAttributes: typeof attributes === 'string' ? {} : attributes,
    Attributes: typeof groupId === 'string' && GROUP_ID.test(groupId) ? { MessageGroupId: groupId } : {},
  };
}

function checkAttributes(value: unknown): Record<string, MessageAttributeValue> | string {
  const out: Record<string, MessageAttributeValue> = {};
  if (value === undefined) return out;
  if (!isRecord(value)) return 'its MessageAttributes are not an object';
  const entries = Object.entries(value);
  if (entries.length > MAX_ATTRIBUTES) return `it has more than ${MAX_ATTRIBUTES} MessageAttributes`;
  for (const [name, attribute] of entries) {
    if (!ATTRIBUTE_NAME.test(name) || FORBIDDEN_NAMES.has(name) || RESERVED_PREFIX.test(name))
      return 'a MessageAttribute name is not one SQS allows';
    if (!isRecord(attribute)) return 'a MessageAttribute is not an object';
    const {
      DataType: type,
      StringValue: text,
      BinaryValue: bytes,
    } = attribute as unknown as MessageAttributeValue;
    if (typeof type !== 'string' || !DATA_TYPE.test(type)) return 'a MessageAttribute has no SQS data type';
    if (type.startsWith('Binary')) {
      if (!(bytes instanceof Uint8Array) || text !== undefined)
        return 'a Binary MessageAttribute holds no bytes';
      out[name] = { DataType: type, BinaryValue: bytes };
    } else {
      if (typeof text !== 'string' || bytes !== undefined) return 'a String MessageAttribute holds no text';
      out[name] = { DataType: type, StringValue: text };
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(problem: string): CheckResult {
  return { ok: false, problem };
}
