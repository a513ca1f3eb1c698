import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Alias, Plugin } from 'vite';
import type { ViteUserConfig } from 'vitest/config';
import rootConfig from '../vitest.config';

/**
 * The root this config runs in: the repository, or Stryker's sandbox copy of it. Everything
 * below resolves against it, never against the real checkout.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Fixed fast-check seed for mutation runs, so the dry run's per-test coverage and every mutant
 * run see the same generated cases (describeConformance reads QUEUEPORT_SEED at import).
 * Override with QUEUEPORT_SEED=N pnpm mutation.
 */
export const MUTATION_SEED = process.env.QUEUEPORT_SEED ?? '42';

/**
 * pnpm links workspace packages as node_modules/@queueport/x -> ../../packages/x. Stryker
 * symlinks node_modules into its sandbox, so those links lead back to the real checkout and a
 * test would import the unmutated sources. Each `@queueport/source` export of each workspace
 * package is therefore aliased to the file inside repoRoot (the sandbox when Stryker runs this).
 */
function workspaceAliases(): Alias[] {
  const dirs = [
    ...readdirSync(path.join(repoRoot, 'packages')).map((name) => path.join('packages', name)),
    'conformance',
  ];
  const aliases: Alias[] = [];
  for (const dir of dirs) {
    let manifest: { name?: string; exports?: Record<string, { '@queueport/source'?: string }> };
    try {
      manifest = JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = target?.['@queueport/source'];
      if (!manifest.name || typeof source !== 'string') continue;
      const specifier = manifest.name + subpath.slice(1);
      aliases.push({
        find: new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
        replacement: path.join(repoRoot, dir, source),
      });
    }
  }
  return aliases;
}

/** Fails the run if a workspace source is loaded from outside repoRoot (i.e. unmutated). */
function staysInRoot(): Plugin {
  return {
    name: 'queueport:stays-in-root',
    enforce: 'pre',
    transform(_code, id) {
      const file = id.split('?')[0]!;
      if (!path.isAbsolute(file) || file.includes(`${path.sep}node_modules${path.sep}`)) return null;
      if (!/\.[cm]?tsx?$/.test(file)) return null;
      if (path.relative(repoRoot, file).startsWith('..')) {
        throw new Error(`${file} is outside ${repoRoot}: a test would run unmutated sources`);
      }
      return null;
    },
  };
}

/** The root config's resolution and services, with only `include` run, at the mutation seed. */
export function mutationVitestConfig(include: string[]): ViteUserConfig {
  return {
    root: repoRoot,
    plugins: [staysInRoot()],
    resolve: { ...rootConfig.resolve, alias: workspaceAliases() },
    ssr: rootConfig.ssr,
    test: {
      include,
      globalSetup: rootConfig.test?.globalSetup,
      env: { QUEUEPORT_SEED: MUTATION_SEED },
      testTimeout: 120_000,
      hookTimeout: 120_000,
      pool: 'forks',
      reporters: ['default'],
    },
  };
}
