import { mutationConfig } from './base.mjs';

// The memory driver and the portable Queue's checks, killed only by the conformance suite's
// virtual-time memory runs (conformance/test/memory.test.ts).
export default mutationConfig('driver', [
  'packages/memory/src/memory-driver.ts',
  'packages/memory/src/dedupe-index.ts',
  'packages/core/src/queue/message-checks.ts',
  'packages/core/src/delay-bridge/*.ts',
]);
