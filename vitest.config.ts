import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the "@queueport/source" export
// condition, so a test never runs against a stale dist/. The name is private to this project (an
// application whose own monorepo uses a plain "source" condition must not reach our src/), and the
// packed packages do not carry it at all (publishConfig.exports).
// Only conditions that mean the same for import and require: vitest passes them to its forks as
// `node --conditions`, and 'import' there would hand require('pg-pool') an ESM build.
const SOURCE_CONDITION = '@queueport/source';
const conditions = [SOURCE_CONDITION, 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: [SOURCE_CONDITION] } },
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
