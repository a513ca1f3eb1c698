/**
 * The tarballs of the published packages: how their dist/ is kept current and how they are
 * packed, shared by `install-alone.ts` (pnpm check:install) and `lint-packages.ts`
 * (pnpm check:packages), so both judge the same tarballs the same way. Which packages those are
 * is `workspace-packages.ts`'s to say.
 */

import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CheckFailed, mtimes, type Progress, readJson, run } from './support';
import {
  INSTALLED_FIELDS,
  type Manifest,
  PACKAGES,
  type PackageInfo,
  type PackageName,
  ROOT,
} from './workspace-packages';

/**
 * The export condition that points the workspace at `src/` (tsconfig customConditions, vitest,
 * `node --conditions=...`). Private to this project, so an application whose own monorepo has a
 * `source` condition never reaches our sources, and absent from every packed manifest: each
 * package's `publishConfig.exports` is its `exports` without it, and pnpm packs that.
 */
export const SOURCE_CONDITION = '@queueport/source';

export interface Packed {
  name: PackageName;
  dir: string;
  version: string;
  tarball: string;
  /** Bytes of the .tgz. */
  size: number;
  /** Paths inside the tarball, relative to its `package/` directory. */
  files: string[];
  /** The manifest as packed (publishConfig applied, workspace: ranges replaced). */
  manifest: Manifest;
}

/** Inputs of a package build besides its src/ (changing any of them makes dist/ stale). */
const SHARED_BUILD_INPUTS = ['scripts/build/tsup-package.ts', 'tsconfig.base.json'];
const PACKAGE_BUILD_INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json'];

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/**
 * Every file a manifest points Node or TypeScript at (`exports` under every condition but the
 * workspace's own, `main`, `module`, `types`, `typesVersions`).
 */
export function entryFiles(manifest: Manifest): string[] {
  const files = new Set<string>();
  const visit = (value: unknown) => {
    if (typeof value === 'string') files.add(path.posix.normalize(value));
    else if (value && typeof value === 'object') {
      for (const [condition, target] of Object.entries(value))
        if (condition !== SOURCE_CONDITION) visit(target);
    }
  };
  visit(manifest.exports);
  for (const field of [manifest.main, manifest.module, manifest.types]) visit(field);
  for (const map of Object.values(manifest.typesVersions ?? {}))
    for (const targets of Object.values(map)) visit(targets);
  return [...files].sort();
}

/** Where a condition name is used as a key anywhere under `value` (JSON paths, for messages). */
export function conditionPaths(value: unknown, condition: string, at = ''): string[] {
  if (!value || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const here = `${at}[${JSON.stringify(key)}]`;
    if (key === condition) found.push(here);
    found.push(...conditionPaths(inner, condition, here));
  }
  return found;
}

/**
 * dist/ of `packages` exists, is complete and is newer than what it is built from; otherwise
 * (or with `force`) they are built with one `pnpm --filter ... run build`.
 */
export async function ensureDist(
  progress: Progress,
  force: boolean,
  packages: readonly PackageInfo[] = PACKAGES,
): Promise<void> {
  const shared = (await Promise.all(SHARED_BUILD_INPUTS.map((file) => mtimes(path.join(ROOT, file))))).flat();
  const inspect = async () => {
    const missing: string[] = [];
    let newestInput = Math.max(...shared);
    let oldestOutput = Number.POSITIVE_INFINITY;
    for (const pkg of packages) {
      const dir = path.join(ROOT, pkg.dir);
      const manifest = await readJson<Manifest>(path.join(dir, 'package.json'));
      for (const input of PACKAGE_BUILD_INPUTS) {
        newestInput = Math.max(newestInput, ...(await mtimes(path.join(dir, input))));
      }
      for (const entry of entryFiles(manifest)) {
        const [time] = await mtimes(path.join(dir, entry));
        if (time === undefined) missing.push(path.posix.join(pkg.dir, entry));
        else oldestOutput = Math.min(oldestOutput, time);
      }
    }
    return { missing, newestInput, oldestOutput };
  };

  const before = await inspect();
  let why: string | undefined;
  if (force) why = '--rebuild';
  else if (before.missing.length > 0)
    why = `missing ${before.missing.slice(0, 3).join(', ')}${before.missing.length > 3 ? ', ...' : ''}`;
  else if (before.newestInput > before.oldestOutput)
    why = `sources changed at ${clock(before.newestInput)}, after the oldest build output (${clock(before.oldestOutput)})`;
  if (!why) {
    progress.detail(
      `dist/ is complete and current (newest source ${clock(before.newestInput)}, oldest output ${clock(before.oldestOutput)}): not rebuilding`,
    );
    return;
  }
  progress.detail(`building (${why})`);
  const started = performance.now();
  // Nine declaration builds take 2.5 minutes on a 2-core machine that is busy with other work.
  await run('pnpm', [...packages.flatMap((pkg) => ['--filter', pkg.name]), 'run', 'build'], {
    cwd: ROOT,
    timeoutMs: 900_000,
  });
  progress.detail(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const after = await inspect();
  if (after.missing.length > 0) {
    throw new CheckFailed(`the build did not produce every entry point: missing ${after.missing.join(', ')}`);
  }
}

/**
 * `pnpm pack` of each package into `packDir`, each tarball also unpacked into
 * `packDir/unpacked/<dir>/` for the checks that read its files. Checks what every tarball must
 * hold whatever it is used for: its name, no `workspace:` range left, no trace of the workspace's
 * source condition, every entry point present, no source map and no TypeScript source.
 */
export async function packAll(
  progress: Progress,
  packDir: string,
  packages: readonly PackageInfo[] = PACKAGES,
): Promise<Map<PackageName, Packed>> {
  // Every package is packed and checked before anything is reported, so one run names every
  // problem (and nothing is still writing into packDir when the caller removes it).
  const settled = await Promise.allSettled(packages.map((pkg) => packOne(pkg, packDir)));
  const failures = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
  if (failures.length > 0) {
    const plain = failures.find((reason) => !(reason instanceof CheckFailed));
    if (plain) throw plain;
    throw new CheckFailed(failures.map((reason: CheckFailed) => reason.message).join('\n'));
  }
  const packed = new Map<PackageName, Packed>();
  for (const outcome of settled) {
    if (outcome.status !== 'fulfilled') continue;
    const result = outcome.value;
    packed.set(result.name, result);
    progress.detail(
      `${result.name}@${result.version} -> ${path.basename(result.tarball)} (${result.files.length} files, ${(result.size / 1024).toFixed(1)} KiB)`,
    );
  }
  return packed;
}

/** Where packAll unpacked a package's tarball (the directory holding its package.json). */
export const unpackedDir = (packDir: string, pkg: { dir: string }) => path.join(packDir, 'unpacked', pkg.dir);

async function packOne(pkg: PackageInfo, packDir: string): Promise<Packed> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', packDir, '--json'], {
    cwd: path.join(ROOT, pkg.dir),
    timeoutMs: 120_000,
  });
  const json = stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1);
  const result = JSON.parse(json) as { filename: string; files: { path: string }[] };
  const tarball = path.resolve(packDir, result.filename);
  const unpacked = unpackedDir(packDir, pkg);
  await mkdir(unpacked, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], {
    cwd: packDir,
    timeoutMs: 30_000,
  });
  const manifest = await readJson<Manifest>(path.join(unpacked, 'package.json'));
  const files = result.files.map((file) => path.posix.normalize(file.path)).sort();
  const { size } = await stat(tarball);

  const problems: string[] = [];
  if (manifest.name !== pkg.name) problems.push(`it is named ${manifest.name}`);
  const contents = new Set(files);
  const absent = entryFiles(manifest).filter((entry) => !contents.has(entry));
  if (absent.length > 0) problems.push(`its entry points are not in the tarball: ${absent.join(', ')}`);
  for (const field of [...INSTALLED_FIELDS, 'devDependencies'] as const) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${name} is still "${range}"`);
    }
  }
  const leaked = conditionPaths(manifest, SOURCE_CONDITION);
  if (leaked.length > 0) {
    problems.push(
      `the workspace's "${SOURCE_CONDITION}" condition is in the packed manifest at ${leaked.join(', ')} (is publishConfig.exports missing?)`,
    );
  }
  const maps = files.filter((file) => file.endsWith('.map'));
  if (maps.length > 0) problems.push(`it ships source maps: ${maps.join(', ')}`);
  const sources = files.filter((file) => /\.[cm]?tsx?$/.test(file) && !/\.d\.[cm]?ts$/.test(file));
  if (sources.length > 0) problems.push(`it ships TypeScript sources: ${sources.join(', ')}`);
  if (problems.length > 0) {
    throw new CheckFailed(`packed ${pkg.name} (${tarball}):\n  ${problems.join('\n  ')}`);
  }
  return { name: pkg.name, dir: pkg.dir, version: manifest.version, tarball, size, files, manifest };
}
