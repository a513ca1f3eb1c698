// The ledger seeding is the library's test helper (reconciliation lives in @queueport/webhook);
// the command's tests seed the same rows.
export { PayloadStore, type SeededLedger, seedLedger } from '../../../webhook/test/helpers/reconcile-ledger';
