// The root entry's share of this folder: the report for a person. Republishing stuck events and
// the worker-side handler are `@queueport/webhook/reconcile` (src/reconcile-entry.ts).
export {
  buildReconciliationReport,
  type ReconciliationOptions,
  type ReconciliationReport,
} from './reconciliation-report';
