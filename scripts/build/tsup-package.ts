import { defineConfig, type Options } from 'tsup';

/**
 * Every package ships the same way: ESM + CJS + declarations for Node 20, with source maps.
 * Splitting in both formats keeps a class shared by two entry points (QueueError in the root
 * and in `/driver`) one class, so `instanceof` holds whichever entry a caller imported it from.
 */
export function packageBuild(entry: NonNullable<Options['entry']>, extra: Partial<Options> = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    splitting: true,
    target: 'node20',
    ...extra,
  });
}
