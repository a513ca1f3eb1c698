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
    // Most of the suite's time is real time spent waiting (leases running out, delays held, the
    // full drill against three providers), not CPU: vitest's default of one worker fewer than
    // the cores (one, on the 2-core machines CI runs on) served those waits one after another.
    maxWorkers: 4,
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
