import { type DriverMessage, QueueError } from '@queueport/core/driver';

/** The database's answers are checked like any outside input before they become receipts or counts. */
const malformed = (what: string) =>
  new QueueError('INTERNAL', `pgqueue: the database answered a malformed ${what}`);

const ID = /^[1-9][0-9]{0,18}$/;
const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A receipt is the row's id and the lease's token, which changes at every receive. */
const RECEIPT = new RegExp(`^(${ID.source.slice(1, -1)})\\.(${TOKEN.source.slice(1, -1)})$`);

export const receiptOf = (id: string, token: string) => `${id}.${token}`;

/** The id and token, or undefined for text no receive of this driver handed out. */
export function parseReceipt(receipt: string): { id: string; token: string } | undefined {
  const match = typeof receipt === 'string' ? RECEIPT.exec(receipt) : null;
  return match ? { id: match[1]!, token: match[2]! } : undefined;
}

export function checkedId(value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value)) throw malformed('message id');
  return value;
}

export function checkedCount(value: unknown, what: string): number {
  const n = typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw malformed(what);
  return n;
}

/** Stored as JSON text, not jsonb, which cannot hold the `\u0000` a value may carry. */
export function checkedAttributes(text: unknown): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(text));
  } catch {}
  const entries =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : [[0, 0]];
  if (entries.some(([, value]) => typeof value !== 'string')) throw malformed('attributes column');
  // fromEntries defines own properties: a stored `__proto__` name cannot reach the prototype.
  return Object.fromEntries(entries);
}

/** One leased row as the Queue takes it. */
export function leasedMessage(row: Record<string, unknown>): DriverMessage {
  const messageId = checkedId(row.id);
  const receiveCount = checkedCount(row.receive_count, 'receive count');
  if (typeof row.token !== 'string' || !TOKEN.test(row.token)) throw malformed('lease token');
  if (typeof row.body !== 'string' || receiveCount < 1) throw malformed('row');
  if (row.group_id !== null && typeof row.group_id !== 'string') throw malformed('group id');
  return {
    receipt: receiptOf(messageId, row.token),
    messageId,
    body: row.body,
    attributes: checkedAttributes(row.attributes),
    receiveCount,
    ...(typeof row.group_id === 'string' ? { groupId: row.group_id } : {}),
  };
}

/** PostgreSQL text holds no NUL: an application's reason or id keeps the rest, readable. */
export const storableText = (text: string) => text.replaceAll('\u0000', '\ufffd');
