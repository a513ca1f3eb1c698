/**
 * Where payloads too large for a queue's body live: the application's own store, addressed by
 * content. The address is the lower-case hex SHA-256 of the exact bytes, so a reference names the
 * bytes and not a place, and whoever reads them can tell whether they are still the ones stored.
 */
export interface PayloadStore {
  /** Stores the bytes under their digest; storing the same bytes again is the same object. */
  put(bytes: Uint8Array): Promise<PayloadReference>;
  /**
   * The bytes a reference names, checked against its digest and size before they are returned:
   * NOT_FOUND when nothing is stored there, INVALID_ENVELOPE (`details.payloadProblem:
   * 'altered'`) when what is stored is not those bytes, PAYLOAD_TOO_LARGE past the store's
   * bound, a retryable UNAVAILABLE when the store cannot answer now.
   */
  get(reference: PayloadReference): Promise<Uint8Array>;
  /** Deletes what was stored (or stored again) more than `olderThanSeconds` ago; the count deleted. */
  prune?(options: PruneOptions): Promise<number>;
}

/** A stored payload's content address. */
export interface PayloadReference {
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
  /** Their length in bytes. */
  sizeBytes: number;
}

export interface PruneOptions {
  /** Age, from the last put of the same bytes, past which an object is deleted. */
  olderThanSeconds: number;
}

/** Why a payload reference was not resolved; `details.payloadProblem` of the error. */
export type PayloadProblem =
  /** Nothing is stored under the digest (deleted, pruned, or never stored). */
  | 'missing'
  /** What is stored there is not the bytes the digest names. */
  | 'altered'
  /** The object is larger than the store, or the Queue, reads. */
  | 'too-large'
  /** A reserved reference the Queue cannot resolve: no store configured, or a form it does not know. */
  | 'unresolvable'
  /** The store did not answer in time or failed for now; the message comes back when its lease ends. */
  | 'unavailable';
