export {
  checkReference,
  contentAddress,
  payloadAltered,
  payloadMissing,
  payloadTooLarge,
  verifyContent,
} from './content-address';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  FilePayloadStore,
  type FilePayloadStoreOptions,
} from './file-payload-store';
export type { PayloadProblem, PayloadReference, PayloadStore, PruneOptions } from './payload-store';
export { RESERVED_REF_SCHEME, readStoredPayloadUri, storedPayloadUri } from './reserved-reference';
export {
  type PayloadStoreOptions,
  type PayloadStoreStats,
  type PlannedOffload,
  StoredPayloads,
} from './stored-payloads';
