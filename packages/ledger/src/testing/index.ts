export { describeAttemptContract } from './attempt-contract';
export { describeLedgerContract, type LedgerHarness, type OpenLedger } from './ledger-contract';
export { type ScratchLedger, type ScratchLedgerStore, scratchLedgers } from './scratch-ledgers';
