// Shared StrykerJS options for the two mutation configurations (driver.conf.mjs, ledger.conf.mjs).
// Not part of CI: run with `pnpm mutation` (see conformance/MUTATION.md).

/**
 * @param {string} name report name, also the vitest config stryker/vitest.<name>.config.ts
 * @param {string[]} mutate the files whose mutants the tests of that config must kill
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function mutationConfig(name, mutate) {
  return {
    packageManager: 'pnpm',
    plugins: ['@stryker-mutator/vitest-runner'],
    testRunner: 'vitest',
    // related: false, the config's `include` is the whole list of tests allowed to kill.
    vitest: { configFile: `stryker/vitest.${name}.config.ts`, related: false },
    mutate,
    // Per-test coverage: each mutant runs only the properties that reach it. Needs the fixed
    // seed set in stryker/vitest.shared.ts, so coverage and mutant runs see the same cases.
    coverageAnalysis: 'perTest',
    concurrency: 2,
    // A mutant that makes a virtual-time wait never end would otherwise sit out a 300 s
    // property timeout; this is still far above any property's real run time.
    timeoutMS: 30_000,
    timeoutFactor: 2,
    // The sandbox, not inPlace: others may edit the sources while a run is going on.
    inPlace: false,
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    ignorePatterns: ['reports', '.stryker-tmp', '**/dist', 'coverage', '.queueport'],
    reporters: ['clear-text', 'progress', 'json', 'html'],
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    disableTypeChecks: true,
    logLevel: 'info',
    fileLogLevel: 'off',
  };
}
