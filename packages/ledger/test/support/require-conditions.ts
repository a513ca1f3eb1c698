import { readFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/**
 * WORKAROUND, test-only; delete once the root vitest.config.ts stops listing 'import' (and
 * 'module', 'default') in `ssr.resolve.conditions`.
 *
 * Vitest ≥ 4 starts its forks with every `ssr.resolve.conditions` entry as `node --conditions`.
 * Node applies custom conditions to require() too, so with 'import' among them a CommonJS
 * `require('pg-pool')` inside pg picks pg-pool's ESM build and pg fails to load ("Class extends
 * value [object Module]"). This maps require() of a package's root back to its "require" export.
 * It does nothing when the process was not started with `--conditions import`.
 */
export function installRequireConditionsWorkaround(): void {
  if (!startedWithImportCondition() || installed) return;
  installed = true;
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    const resolved = resolve.call(this, request, ...rest);
    return isPackageRoot(request) ? (requireEntry(request, resolved) ?? resolved) : resolved;
  };
}

let installed = false;

function startedWithImportCondition(): boolean {
  const args = process.execArgv;
  return args.some(
    (arg, index) =>
      arg === '--conditions=import' ||
      arg === '-C=import' ||
      ((arg === '--conditions' || arg === '-C') && args[index + 1] === 'import'),
  );
}

function isPackageRoot(request: string): boolean {
  return /^(@[^/.][^/]*\/)?[^/.@][^/]*$/.test(request) && !request.startsWith('node:');
}

/** The file the package's `exports["."].require` names, when the resolution landed elsewhere. */
function requireEntry(name: string, resolved: string): string | undefined {
  for (let dir = path.dirname(resolved); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    let manifest: { name?: string; exports?: unknown };
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (manifest.name !== name) continue;
    const root = (manifest.exports as Record<string, unknown> | undefined)?.['.'];
    const target = root && typeof root === 'object' ? (root as Record<string, unknown>).require : undefined;
    return typeof target === 'string' ? path.join(dir, target) : undefined;
  }
  return undefined;
}
