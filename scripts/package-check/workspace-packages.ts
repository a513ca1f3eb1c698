/**
 * The one inventory of this workspace's packages, read from the workspace itself: the globs of
 * `pnpm-workspace.yaml` and each package's `package.json` (its name and `private` flag). Every
 * check that needs "the packages" reads it (publint, attw and the scratch install, the docs
 * tests), so a package added to the workspace is checked, documented and released without
 * anyone remembering a list.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type DependencyField = 'dependencies' | 'optionalDependencies' | 'peerDependencies';
/** The manifest fields npm installs from; devDependencies of a dependency never install. */
export const INSTALLED_FIELDS: readonly DependencyField[] = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
];

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  keywords?: string[];
  license?: string;
  repository?: string | { type?: string; url?: string; directory?: string };
  engines?: Record<string, string>;
  type?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  main?: string;
  module?: string;
  types?: string;
  typesVersions?: Record<string, Record<string, string[]>>;
  files?: string[];
  publishConfig?: Record<string, unknown>;
  scripts?: Record<string, string>;
  gypfile?: boolean;
  bundleDependencies?: string[] | boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

export type PackageName = string;

export interface WorkspacePackage {
  name: PackageName;
  /** The package's folder, relative to the root, with `/` separators (`packages/core`). */
  dir: string;
  /** `"private": true`: never packed nor published (the examples). */
  private: boolean;
  manifest: Manifest;
}
/** A package that is published: what publint, attw, the scratch install and the release group cover. */
export type PackageInfo = WorkspacePackage;

/**
 * The `packages:` globs of pnpm-workspace.yaml. Only the forms this workspace uses are read (a
 * folder, or a folder's direct children as `folder/*`); anything else is refused by name rather
 * than half understood, so a new kind of glob cannot silently drop packages from every check.
 */
export function workspaceGlobs(root = ROOT): string[] {
  const text = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs: string[] = [];
  let inPackages = false;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\s+#.*$/, '').trimEnd();
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      inPackages = line === 'packages:';
      continue;
    }
    if (!inPackages) continue;
    const item = /^\s+-\s+(['"]?)([^'"]+)\1$/.exec(line);
    if (!item)
      throw new Error(`pnpm-workspace.yaml:${index + 1}: cannot read "${raw.trim()}" as a package glob`);
    globs.push(item[2]!);
  }
  if (globs.length === 0) throw new Error('pnpm-workspace.yaml names no packages');
  return globs;
}

function expandGlob(root: string, glob: string): string[] {
  const plain = /^[\w.-]+(\/[\w.-]+)*$/;
  if (plain.test(glob)) return existsSync(path.join(root, glob, 'package.json')) ? [glob] : [];
  const children = /^([\w.-]+(?:\/[\w.-]+)*)\/\*$/.exec(glob);
  if (!children) {
    throw new Error(
      `pnpm-workspace.yaml: the glob "${glob}" is neither a folder nor "folder/*"; teach scripts/package-check/workspace-packages.ts to read it`,
    );
  }
  const parent = children[1]!;
  return readdirSync(path.join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, parent, entry.name, 'package.json')))
    .map((entry) => `${parent}/${entry.name}`);
}

const workspaceDependencies = (manifest: Manifest, names: ReadonlySet<string>) =>
  INSTALLED_FIELDS.flatMap((field) => Object.keys(manifest[field] ?? {})).filter((dep) => names.has(dep));

/**
 * Every package of the workspace, private ones included, in dependency order (a package after
 * every workspace package it depends on or takes as a peer; otherwise by folder), so npm and the
 * build get them in an order that works.
 */
export function workspacePackages(root = ROOT): WorkspacePackage[] {
  const dirs = [...new Set(workspaceGlobs(root).flatMap((glob) => expandGlob(root, glob)))].sort();
  const found = dirs.map((dir): WorkspacePackage => {
    const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Manifest;
    if (!manifest.name) throw new Error(`${dir}/package.json has no name`);
    return { name: manifest.name, dir, private: manifest.private === true, manifest };
  });
  const byName = new Map(found.map((pkg) => [pkg.name, pkg]));
  const names = new Set(byName.keys());
  const ordered: WorkspacePackage[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (pkg: WorkspacePackage, chain: string[]): void => {
    if (state.get(pkg.name) === 'done') return;
    if (state.get(pkg.name) === 'visiting') {
      throw new Error(
        `workspace packages depend on each other in a cycle: ${[...chain, pkg.name].join(' -> ')}`,
      );
    }
    state.set(pkg.name, 'visiting');
    for (const dep of workspaceDependencies(pkg.manifest, names))
      visit(byName.get(dep)!, [...chain, pkg.name]);
    state.set(pkg.name, 'done');
    ordered.push(pkg);
  };
  for (const pkg of found) visit(pkg, []);
  return ordered;
}

/** Every published package (not `private`), in dependency order. */
export const PACKAGES: readonly PackageInfo[] = workspacePackages().filter((pkg) => !pkg.private);

/** The short name the docs use for a package (`core` for `@queueport/core`). */
export const shortName = (name: PackageName): string => name.replace(/^@queueport\//, '');
