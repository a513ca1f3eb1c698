import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the "source" export
// condition, so a test never runs against a stale dist/.
// Only conditions that mean the same for import and require: vitest passes them to its forks as
// `node --conditions`, and 'import' there would hand require('pg-pool') an ESM build.
const conditions = ['source', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'conformance/test/**/*.test.ts',
      'scripts/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    globalSetup: ['scripts/test-services/vitest-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
