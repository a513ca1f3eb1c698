import type { PayloadReference } from './payload-store';

/**
 * The `payload_ref.uri` scheme reserved for the Queue's own offloaded payloads, as the
 * `queueport.` attribute prefix is for its attributes. A reference in this scheme is resolved by
 * the receiving Queue before any handler runs; an application's own references (`https:`,
 * `s3:`, …) pass through to the handler as they always did.
 */
export const RESERVED_REF_SCHEME = 'queueport:';

const STORED_PAYLOAD = /^queueport:payload:sha256:([0-9a-f]{64}):(0|[1-9][0-9]{0,15})$/;

/** `queueport:payload:sha256:<hex digest>:<size in bytes>`: the address, and how much to read. */
export function storedPayloadUri(reference: PayloadReference): string {
  return `${RESERVED_REF_SCHEME}payload:sha256:${reference.sha256}:${reference.sizeBytes}`;
}

export function isReservedUri(uri: string): boolean {
  return uri.startsWith(RESERVED_REF_SCHEME);
}

/** The reference a reserved URI carries, or undefined for one this version does not know. */
export function readStoredPayloadUri(uri: string): PayloadReference | undefined {
  const match = STORED_PAYLOAD.exec(uri);
  if (!match) return undefined;
  const sizeBytes = Number(match[2]);
  return Number.isSafeInteger(sizeBytes) ? { sha256: match[1]!, sizeBytes } : undefined;
}
