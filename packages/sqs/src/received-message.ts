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

export type CheckResult = { ok: true; message: CheckedMessage } | { ok: false; problem: string };

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
  if (typeof receipt !== 'string' || !TOKEN.test(receipt))
    return bad('its ReceiptHandle is not a receipt handle');
  if (typeof messageId !== 'string' || !MESSAGE_ID.test(messageId)) return bad('its MessageId is not an id');
  if (typeof body !== 'string') return bad('its Body is not text');
  if (Buffer.byteLength(body, 'utf8') > maxMessageBytes)
    return bad('its Body is larger than the queue allows');
  const system = message.Attributes;
  if (system !== undefined && !isRecord(system)) return bad('its Attributes are not an object');
  const count = system?.ApproximateReceiveCount;
  if (typeof count !== 'string' || !COUNT.test(count) || !Number.isSafeInteger(Number(count))) {
    return bad('its ApproximateReceiveCount is not a whole number from 1');
  }
  const firstSeen = system?.ApproximateFirstReceiveTimestamp;
  if (firstSeen !== undefined && (typeof firstSeen !== 'string' || !TIMESTAMP.test(firstSeen))) {
    return bad('its ApproximateFirstReceiveTimestamp is not a time');
  }
  const groupId = system?.MessageGroupId;
  if (groupId !== undefined && (typeof groupId !== 'string' || !GROUP_ID.test(groupId))) {
    return bad('its MessageGroupId is not a group id');
  }
  const attributes = checkAttributes(message.MessageAttributes);
  if (typeof attributes === 'string') return bad(attributes);
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
