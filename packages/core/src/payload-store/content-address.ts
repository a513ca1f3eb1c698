import { createHash } from 'node:crypto';
import { QueueError } from '../errors';
import type { PayloadReference } from './payload-store';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The content address of some bytes: their SHA-256, and their length. */
export function contentAddress(bytes: Uint8Array): PayloadReference {
  return { sha256: createHash('sha256').update(bytes).digest('hex'), sizeBytes: bytes.byteLength };
}

/**
 * A reference read from outside (an envelope, an application) as plain, bounded data: a store
 * builds a file name or an object key from it, so anything but 64 hex digits and a whole size is
 * refused before it gets near a path.
 */
export function checkReference(reference: unknown, maxBytes: number): PayloadReference {
  const { sha256, sizeBytes } = (reference ?? {}) as Partial<Record<keyof PayloadReference, unknown>>;
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new QueueError('INVALID_ARGUMENT', 'a payload reference needs a lower-case hex SHA-256', {
      details: { field: 'sha256' },
    });
  }
  if (typeof sizeBytes !== 'number' || !Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
    throw new QueueError('INVALID_ARGUMENT', 'a payload reference needs a whole sizeBytes, 0 or more', {
      details: { field: 'sizeBytes' },
    });
  }
  if (sizeBytes > maxBytes) {
    throw new QueueError(
      'PAYLOAD_TOO_LARGE',
      `payload ${sha256} is ${sizeBytes} bytes; this store reads at most ${maxBytes}`,
      { details: { payloadProblem: 'too-large', sha256, sizeBytes, maxPayloadBytes: maxBytes } },
    );
  }
  return { sha256, sizeBytes };
}

/** The bound a store is built with: a whole number of bytes, at least 1. */
export function checkMaxPayloadBytes(value: unknown, field = 'maxPayloadBytes'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new QueueError('INVALID_ARGUMENT', `${field} must be a whole number of bytes, 1 or more`, {
      details: { field },
    });
  }
  return value;
}

/** `get`'s last check, shared by every store: the bytes read are the ones the reference names. */
export function verifyContent(bytes: Uint8Array, reference: PayloadReference, where: string): Uint8Array {
  const actual = contentAddress(bytes);
  if (actual.sizeBytes !== reference.sizeBytes || actual.sha256 !== reference.sha256) {
    throw payloadAltered(reference, where);
  }
  return bytes;
}

export function payloadMissing(reference: PayloadReference, where: string, cause?: unknown): QueueError {
  return new QueueError('NOT_FOUND', `payload ${reference.sha256} is not in ${where}`, {
    details: { payloadProblem: 'missing', sha256: reference.sha256 },
    ...(cause === undefined ? {} : { cause }),
  });
}

export function payloadAltered(reference: PayloadReference, where: string): QueueError {
  return new QueueError(
    'INVALID_ENVELOPE',
    `payload ${reference.sha256} in ${where} is not the bytes its digest names: it changed after it was stored`,
    { details: { payloadProblem: 'altered', sha256: reference.sha256 } },
  );
}

export function payloadTooLarge(sizeBytes: number, maxBytes: number, where: string): QueueError {
  return new QueueError(
    'PAYLOAD_TOO_LARGE',
    `a payload of ${sizeBytes} bytes is past what ${where} holds (${maxBytes})`,
    { details: { payloadProblem: 'too-large', sizeBytes, maxPayloadBytes: maxBytes } },
  );
}
