export { dropMemoryConnection, memoryAdapter } from './memory-adapter';
export { MemoryDriver, type MemoryDriverOptions } from './memory-driver';
export type { DeadLetter } from './stored-message';
