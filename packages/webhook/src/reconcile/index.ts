export {
  buildReconciliationReport,
  type ReconciliationOptions,
  type ReconciliationReport,
} from './reconciliation-report';
