import { QueueError } from '@queueport/core/driver';
import type { Message, Options } from 'amqplib';

/**
 * A queueport message in AMQP: the envelope is the body byte for byte, the attributes one JSON
 * header (JSON keeps every string exact, lone surrogates included), and the receives before this
 * copy, for a copy the driver republished (a delayed release, a give-back, a dead letter).
 */
const [ATTRIBUTES, RECEIVES, REASON, DEAD_AT] = ['qp-attributes', 'qp-receives', 'qp-reason', 'qp-dead-at'];

/**
 * Most attribute bytes (names and values, UTF-8). Headers travel in one frame (frame_max 131072)
 * and amqplib encodes a table in a 64 KiB buffer: JSON makes a byte at most 6, so 8 KiB always fits.
 */
export const MAX_ATTRIBUTE_BYTES = 8192;

export const deadLetterQueueOf = (queue: string) => `${queue}.dead-letters`;
export const delayQueueOf = (queue: string, seconds: number) => `${queue}.delay.${seconds}`;
const declared = (args: Record<string, unknown>): Options.AssertQueue => ({ durable: true, arguments: args });

/** Quorum, dead-lettering to its own queue; the limit is one past the redrive, so the driver moves that one with its count. */
export const mainQueueOptions = (queue: string, maxReceives: number | undefined) =>
  declared({
    ...{ 'x-queue-type': 'quorum', 'x-dead-letter-exchange': '' },
    'x-dead-letter-routing-key': deadLetterQueueOf(queue),
    ...(maxReceives === undefined ? {} : { 'x-delivery-limit': maxReceives }),
  });

export const deadLetterQueueOptions = declared({ 'x-queue-type': 'quorum' });

/**
 * One classic queue per delay: all its messages share one TTL, so the head always expires first
 * and each leaves on time, back to the queue. Redeclared at each use, it outlives its last message.
 */
export const delayQueueOptions = (queue: string, seconds: number) =>
  declared({
    ...{ 'x-queue-type': 'classic', 'x-message-ttl': seconds * 1000, 'x-expires': seconds * 1000 + 60_000 },
    ...{ 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queue },
  });

export const attributeBytes = (attributes: Readonly<Record<string, string>>) =>
  Object.entries(attributes).reduce((sum, [name, value]) => sum + Buffer.byteLength(name + value), 0);

export interface Stored {
  messageId: string;
  body: string;
  attributes: Record<string, string>;
  receivesBefore: number;
  deadLetter?: { reason: string; at: number };
}

export function publishOptions({
  messageId,
  attributes,
  receivesBefore,
  deadLetter,
}: Stored): Options.Publish {
  const dead = deadLetter ? { [REASON]: deadLetter.reason, [DEAD_AT]: deadLetter.at } : {};
  const headers = { [ATTRIBUTES]: JSON.stringify(attributes), [RECEIVES]: receivesBefore, ...dead };
  return { persistent: true, mandatory: true, messageId, contentType: 'application/json', headers };
}

const malformed = (what: string) =>
  new QueueError('INTERNAL', `rabbitmq: the broker handed a malformed ${what}`);

function count(value: unknown, what: string): number {
  const n = value === undefined ? 0 : Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw malformed(what);
  return n;
}

/** A delivery read back, checked like any outside input. */
export function readMessage(message: Message) {
  const headers = message.properties.headers ?? {};
  let attributes: unknown;
  try {
    attributes = JSON.parse(String(headers[ATTRIBUTES] ?? '{}'));
  } catch {}
  const entries = attributes && typeof attributes === 'object' ? Object.entries(attributes) : [[0, 0]];
  if (Array.isArray(attributes) || entries.some(([, v]) => typeof v !== 'string'))
    throw malformed('attributes');
  const { messageId } = message.properties;
  if (typeof messageId !== 'string' || messageId === '') throw malformed('message id');
  const receivesBefore = count(headers[RECEIVES], 'receive count');
  const reason = headers[REASON] ?? headers['x-first-death-reason'];
  return {
    ...{ messageId, body: message.content.toString('utf8'), receivesBefore },
    // fromEntries defines own properties: a stored `__proto__` name cannot reach the prototype.
    attributes: Object.fromEntries(entries) as Record<string, string>,
    // A quorum queue counts the returns of this copy; a first delivery has no header.
    receiveCount: receivesBefore + count(headers['x-delivery-count'], 'delivery count') + 1,
    reason: reason === undefined ? undefined : String(reason),
    deadAt: headers[DEAD_AT] === undefined ? undefined : count(headers[DEAD_AT], 'time'),
  };
}
