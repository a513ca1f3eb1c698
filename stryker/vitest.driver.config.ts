import { defineConfig } from 'vitest/config';
import { mutationVitestConfig } from './vitest.shared';

// The only tests allowed to kill driver/Queue-check mutants: the conformance suite on virtual time.
export default defineConfig(mutationVitestConfig(['conformance/test/memory.test.ts']));
