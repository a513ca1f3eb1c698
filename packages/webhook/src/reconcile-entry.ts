/**
 * `@queueport/webhook/reconcile`: finding the events the ledger shows stuck and republishing
 * them within a time budget, inline or handed to the application's workers as queue messages
 * (the work format and `handleReconcileMessage`, which those workers call), beside the report
 * for a person (`buildReconciliationReport`, also on the root entry).
 */
export { handleReconcileMessage, type ReconcileWorkerOptions } from './reconcile/handle-reconcile-message';
export type { LoadedPayload, PayloadLoader } from './reconcile/payload-loader';
export type { ReconcileResult } from './reconcile/reconcile-result';
export {
  isReconcileWork,
  parseReconcileWork,
  RECONCILE_REPUBLISH_TYPE,
  RECONCILE_SCAN_TYPE,
  type ReconcileWork,
  type RepublishUnit,
  type ScanContinuation,
} from './reconcile/reconcile-work';
export {
  buildReconciliationReport,
  type ReconciliationOptions,
  type ReconciliationReport,
} from './reconcile/reconciliation-report';
export { type ReconcileOptions, runReconcile } from './reconcile/run-reconcile';
