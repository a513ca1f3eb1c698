import { defineConfig } from 'vitest/config';
import { mutationVitestConfig } from './vitest.shared';

// The only tests allowed to kill driver/Queue-check mutants: the conformance suite on virtual time,
// over every memory configuration (memory.test.ts and the manifest variants).
export default defineConfig(
  mutationVitestConfig(['conformance/test/memory.test.ts', 'conformance/test/memory-variants.test.ts']),
);
