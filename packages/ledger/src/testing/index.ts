export { describeAttemptContract } from './attempt-contract';
export { describeLedgerContract, type LedgerHarness, type OpenLedger } from './ledger-contract';
