export { Coalescer, type CoalescerSettings, type EntryOutcome } from './coalescer';
