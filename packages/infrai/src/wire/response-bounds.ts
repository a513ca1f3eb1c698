import { MAX_BODY_BYTES, QueueError, redactSecrets } from '@queueport/core/driver';
import type { CapabilityContract } from '../discovery/discovery-format';

/**
 * Room for one message in an answer: its payload (at most the contract's 256 KB as we sent it)
 * re-serialized by Infrai, which may escape every non-ASCII character (`\uXXXX`: up to three
 * times the UTF-8 bytes), plus its ids, counts and dates.
 */
const PER_MESSAGE_BYTES = 3 * MAX_BODY_BYTES + 16 * 1024;
/** The envelope (`ok`, `error`, `metadata`) and everything an answer without messages holds, a queue list included. */
const ENVELOPE_BYTES = 4 * 1024 * 1024;

/**
 * The most bytes an answer to this call may have: a call that asks for messages
 * (`max_messages`, else its schema's maximum) gets room for that many; anything past it is not
 * an answer the contract allows, and reading it would let a server fill the process's memory.
 */
export function maxResponseBytes(contract: CapabilityContract, params: object): number {
  const asked = (params as { max_messages?: unknown }).max_messages;
  const schemaMax = (contract.request as { properties?: { max_messages?: { maximum?: unknown } } })
    ?.properties?.max_messages?.maximum;
  const count =
    typeof asked === 'number' && Number.isSafeInteger(asked) && asked > 0
      ? asked
      : typeof schemaMax === 'number' && Number.isSafeInteger(schemaMax) && schemaMax > 0
        ? schemaMax
        : 0;
  return ENVELOPE_BYTES + Math.min(count, 1000) * PER_MESSAGE_BYTES;
}

/** An answer larger than `maxResponseBytes`: what is left of it is never read. */
export function tooLarge(where: string, limit: number, requestId: string | undefined): QueueError {
  return new QueueError(
    'INTERNAL',
    `${where}: the answer is larger than the ${limit} bytes the contract allows; the rest was not read`,
    { retryable: false, details: { maxResponseBytes: limit, ...(requestId ? { requestId } : {}) } },
  );
}

/** A UUID v7 as Infrai documents, or any other short id of plain characters. */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Infrai's request id, where it reads as one: a server (or a proxy) that echoes the request
 * could put anything there, the Authorization header included, so a value of another shape is
 * dropped, and so is one that holds a configured secret.
 */
export function safeRequestId(value: unknown, secrets: readonly string[]): string | undefined {
  if (typeof value !== 'string' || !REQUEST_ID.test(value)) return undefined;
  const masked = redactSecrets(value, secrets);
  return masked === value ? value : undefined;
}

/** Infrai's error codes are upper-case words (`QUEUE_NOT_FOUND`); anything else is not one. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export function safeErrorCode(value: unknown, secrets: readonly string[]): string | undefined {
  if (typeof value !== 'string' || !ERROR_CODE.test(value)) return undefined;
  return redactSecrets(value, secrets) === value ? value : undefined;
}

/** Infrai's own message, bounded and with the configured secrets masked. */
export function safeMessage(value: unknown, secrets: readonly string[]): string {
  if (typeof value !== 'string') return '';
  // Masked before it is cut, so a secret cut in half is never left half shown.
  const masked = redactSecrets(value, secrets);
  const bounded = masked.length > 500 ? `${masked.slice(0, 500)}…` : masked;
  // Control characters would let a server forge lines in a log.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return bounded.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
