import { type OutgoingMessage, PROVIDER_ATTRIBUTES } from '@queueport/core/driver';

/** A job's data: the encoded envelope as it was published, and the attributes when there are any. */
export interface JobData {
  b: string;
  a?: Record<string, string>;
}

/** What a job's data gives a delivery, or why the job cannot be delivered at all. */
export type DecodedJobData =
  | { ok: true; body: string; attributes: Record<string, string> }
  | { ok: false; reason: string };

/** Keys that would reach an object's prototype, or look like it, wherever a handler spreads them. */
const DANGEROUS_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function encodeJobData(message: OutgoingMessage): JobData {
  return Object.keys(message.attributes).length > 0
    ? { b: message.body, a: { ...message.attributes } }
    : { b: message.body };
}

/**
 * Reads a job's parsed data without trusting it: the job may have been written by anyone with
 * access to Redis. queueport's own shape gives its body and attributes, each attribute checked;
 * other data is handed on as its JSON, which the Queue refuses as an envelope and dead-letters.
 * Never throws: a job that cannot be read is reported, so one bad job never fails a receive.
 */
export function decodeJobData(data: unknown): DecodedJobData {
  if (data !== null && typeof data === 'object' && typeof (data as JobData).b === 'string') {
    const { b, a } = data as { b: string; a?: unknown };
    const attributes = checkAttributes(a);
    return typeof attributes === 'string'
      ? { ok: false, reason: attributes }
      : { ok: true, body: b, attributes };
  }
  let body: string | undefined;
  try {
    body = JSON.stringify(data);
  } catch {
    // JSON.stringify recurses: data nested many thousand levels deep overflows the stack.
    return { ok: false, reason: 'its data nests too deep to read' };
  }
  return { ok: true, body: body ?? 'null', attributes: {} };
}

/** The attributes, or what is wrong with them. Names only the problem, never a value. */
function checkAttributes(raw: unknown): Record<string, string> | string {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return 'its attributes are not an object of strings';
  }
  const keys = Object.keys(raw);
  if (keys.length > PROVIDER_ATTRIBUTES) {
    return `it has ${keys.length} attributes, more than ${PROVIDER_ATTRIBUTES}`;
  }
  const attributes: Record<string, string> = {};
  for (const key of keys) {
    if (DANGEROUS_KEYS.has(key)) return 'it has an attribute named like an object prototype';
    const value = (raw as Record<string, unknown>)[key];
    if (typeof value !== 'string') return 'it has an attribute whose value is not a string';
    attributes[key] = value;
  }
  return attributes;
}

/** A receive count from BullMQ's start counter: a whole number from 1, else why not. */
export function checkReceiveCount(attemptsStarted: unknown): number | string {
  return typeof attemptsStarted === 'number' && Number.isSafeInteger(attemptsStarted) && attemptsStarted >= 1
    ? attemptsStarted
    : 'its start count (ats) is not a whole number from 1';
}
