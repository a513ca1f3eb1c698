import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AdapterDefinition } from '@queueport/core/driver';

/** Whether a value reads as an AdapterDefinition: what a module's export must be to serve a scheme. */
export function isAdapterDefinition(value: unknown): value is AdapterDefinition {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as Partial<AdapterDefinition>;
  return (
    typeof candidate.scheme === 'string' &&
    typeof candidate.packageName === 'string' &&
    typeof candidate.virtualClock === 'boolean' &&
    typeof candidate.open === 'function'
  );
}

/**
 * The adapter definitions a module exports: its default export (one definition, or a list of
 * them) and every named export that is one, each once.
 */
export function definitionsOf(module: unknown): AdapterDefinition[] {
  if (!module || typeof module !== 'object') return [];
  const found = new Set<AdapterDefinition>();
  const add = (value: unknown) => {
    if (isAdapterDefinition(value)) found.add(value);
  };
  for (const [name, value] of Object.entries(module)) {
    if (name === 'default' && Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  // tsx and CommonJS interop may put the module's exports one level down, under default.
  const inner = (module as { default?: unknown }).default;
  if (found.size === 0 && inner && typeof inner === 'object' && !Array.isArray(inner)) {
    for (const value of Object.values(inner)) add(value);
  }
  return [...found];
}

/** A specifier that names a file or folder (relative to the configuration file) rather than a package. */
export function isPathSpecifier(specifier: string): boolean {
  return /^\.{1,2}([\\/]|$)/.test(specifier) || path.isAbsolute(specifier);
}

/**
 * Where an `adapters` entry is imported from: a path resolves against the configuration file's
 * folder (a folder through its package.json), a package name as that folder's project would
 * import it (its node_modules first, then the CLI's own).
 */
export function resolveAdapterSpecifier(specifier: string, configFile: string): string {
  const require = createRequire(configFile);
  if (isPathSpecifier(specifier)) {
    const absolute = path.resolve(path.dirname(configFile), specifier);
    try {
      return pathToFileURL(require.resolve(absolute)).href;
    } catch {
      return pathToFileURL(absolute).href;
    }
  }
  try {
    return pathToFileURL(require.resolve(specifier)).href;
  } catch {
    // An ESM-only package (no "require" condition) resolves only through import.
    return specifier;
  }
}
