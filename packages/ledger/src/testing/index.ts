export { describeLedgerContract, type LedgerHarness, type OpenLedger } from './ledger-contract';
