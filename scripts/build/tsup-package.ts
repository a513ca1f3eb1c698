import { defineConfig, type Options } from 'tsup';

/**
 * Every package ships the same way: ESM + CJS + declarations for Node 20.
 *
 * No source maps: they were more than half of every tarball (they embed the TypeScript sources),
 * and the output is neither minified nor mangled, so a stack trace into dist/ reads as it is.
 * Tests and the fuzzer run the sources themselves (the `@queueport/source` condition).
 *
 * Splitting in both formats keeps a class shared by two entry points (QueueError in the root
 * and in `/driver`) one class, so `instanceof` holds whichever entry a caller imported it from.
 */
export function packageBuild(entry: NonNullable<Options['entry']>, extra: Partial<Options> = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: false,
    splitting: true,
    target: 'node20',
    ...extra,
  });
}
