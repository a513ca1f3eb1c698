import { mutationConfig } from './base.mjs';

// The ledger's claim and settlement rules, killed only by the ledger contract (SQLite and
// PostgreSQL) and the webhook crash window.
export default mutationConfig('ledger', [
  'packages/ledger/src/claim-decision.ts',
  'packages/ledger/src/settlement.ts',
]);
