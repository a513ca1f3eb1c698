// The store-neutral part: the Ledger interface, its types and limits. Nothing here loads a
// database client; the stores are subpaths: @queueport/ledger/sqlite, @queueport/ledger/postgres.
export { type AttemptLog, hasAttemptLog, type ListAttemptsRequest } from './attempts/attempt-log';
export {
  type AttemptInput,
  type AttemptOutcome,
  type AttemptRecord,
  type AttemptResponseSample,
  MAX_ERROR_CLASS_CHARS,
  MAX_RESPONSE_SAMPLE_CHARS,
} from './attempts/attempt-record';
export * from './destinations';
export type {
  BatchOutcome,
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerRecord,
  LedgerState,
  ListRequest,
  ReleaseRequest,
  ScanRequest,
  SettleEntry,
  SettleRequest,
} from './ledger';
export { MAX_BATCH_ENTRIES } from './ledger';
export * from './retention';
export { MAX_OUTCOME_CHARS, MAX_SCAN_LIMIT } from './validation';
