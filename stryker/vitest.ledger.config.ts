import { defineConfig } from 'vitest/config';
import { mutationVitestConfig } from './vitest.shared';

// The only tests allowed to kill claim/settle-rule mutants: the ledger contract on both stores
// and the webhook crash window.
export default defineConfig(
  mutationVitestConfig([
    'packages/ledger/test/sqlite.test.ts',
    'packages/ledger/test/postgres.test.ts',
    'packages/webhook/test/crash-window.test.ts',
  ]),
);
