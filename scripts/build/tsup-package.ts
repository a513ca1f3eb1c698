import { defineConfig, type Options } from 'tsup';

/** Every package ships the same way: ESM + CJS + declarations for Node 20, with source maps. */
export function packageBuild(entry: NonNullable<Options['entry']>, extra: Partial<Options> = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...extra,
  });
}
