/**
 * Proves that @queueport/conformance installs and runs with no native module, alone, outside this
 * repository, the way an adapter author gets it: the packed tarballs of core, memory and
 * conformance installed with npm into a scratch project under the OS temp dir, then the suite run
 * against the memory driver from plain `node` as ESM and as CommonJS.
 *
 *   pnpm check:install [--keep] [--rebuild] [--seed N]
 *
 *   --keep     leave the scratch project and the tarballs in place and print where they are
 *   --rebuild  build the three packages even if their dist/ looks current
 *   --seed N   the fast-check seed for both programs (random by default, always printed)
 *
 * Needs pnpm, npm and tar on PATH and the npm registry reachable (for fast-check, ajv, ...).
 * Exits 1 with the reason on the first check that fails.
 */

import { existsSync, rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckFailed, killRunning, messageOf, mtimes, Progress, readJson, run, walk } from './support';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

/** In dependency order: npm gets the tarballs in this order too. */
const PACKAGES = [
  { name: '@queueport/core', dir: 'packages/core' },
  { name: '@queueport/memory', dir: 'packages/memory' },
  { name: '@queueport/conformance', dir: 'conformance' },
] as const;
type PackageName = (typeof PACKAGES)[number]['name'];

/** What an adapter author must never be made to install (the last two compile, or pull in what does). */
const FORBIDDEN_DEPENDENCIES = ['@queueport/ledger', '@queueport/webhook', 'better-sqlite3', 'pg'];
const FORBIDDEN_DIRECTORIES = new Set(['better-sqlite3', 'pg']);
/** The manifest fields npm installs from; devDependencies of a dependency never install. */
const INSTALLED_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;
/** Inputs of a package build besides its src/ (changing any of them makes dist/ stale). */
const SHARED_BUILD_INPUTS = ['scripts/build/tsup-package.ts', 'tsconfig.base.json'];
const PACKAGE_BUILD_INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json'];

interface Manifest {
  name: string;
  version: string;
  exports?: unknown;
  main?: string;
  module?: string;
  types?: string;
  scripts?: Record<string, string>;
  gypfile?: boolean;
  bundleDependencies?: string[] | boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

interface Packed {
  name: PackageName;
  version: string;
  tarball: string;
  manifest: Manifest;
}

const USAGE =
  'usage: node --import tsx scripts/package-check/install-alone.ts [--keep] [--rebuild] [--seed N]';

function parseCli(): { keep: boolean; rebuild: boolean; seed: number } {
  let values: { keep?: boolean; rebuild?: boolean; seed?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        keep: { type: 'boolean', default: false },
        rebuild: { type: 'boolean', default: false },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    console.error(`${messageOf(error)}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const seed = values.seed === undefined ? Math.floor(Math.random() * 0x7fffffff) : Number(values.seed);
  if (!Number.isSafeInteger(seed)) {
    console.error(`--seed takes an integer, not "${values.seed}"\n${USAGE}`);
    process.exit(2);
  }
  return { keep: values.keep ?? false, rebuild: values.rebuild ?? false, seed };
}

const isInside = (file: string, dir: string) => {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/** Every file a manifest points Node or TypeScript at, except the repo-only `source` condition. */
function entryFiles(manifest: Manifest): string[] {
  const files = new Set<string>();
  const visit = (value: unknown) => {
    if (typeof value === 'string') files.add(path.posix.normalize(value));
    else if (value && typeof value === 'object') {
      for (const [condition, target] of Object.entries(value)) if (condition !== 'source') visit(target);
    }
  };
  visit(manifest.exports);
  for (const field of [manifest.main, manifest.module, manifest.types]) visit(field);
  return [...files].sort();
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** Step 1: dist/ of the three packages exists, is complete and is newer than what it is built from. */
async function ensureDist(progress: Progress, force: boolean): Promise<void> {
  const shared = (await Promise.all(SHARED_BUILD_INPUTS.map((file) => mtimes(path.join(ROOT, file))))).flat();
  const inspect = async () => {
    const missing: string[] = [];
    let newestInput = Math.max(...shared);
    let oldestOutput = Number.POSITIVE_INFINITY;
    for (const pkg of PACKAGES) {
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
  await run('pnpm', [...PACKAGES.flatMap((pkg) => ['--filter', pkg.name]), 'run', 'build'], {
    cwd: ROOT,
    timeoutMs: 300_000,
  });
  progress.detail(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const after = await inspect();
  if (after.missing.length > 0) {
    throw new CheckFailed(`the build did not produce every entry point: missing ${after.missing.join(', ')}`);
  }
}

/** Names of the packages a manifest makes npm install, with their ranges. */
function installedDependencies(manifest: Manifest): Map<string, string> {
  const found = new Map<string, string>();
  for (const field of INSTALLED_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) found.set(name, range);
  }
  if (Array.isArray(manifest.bundleDependencies)) {
    for (const name of manifest.bundleDependencies) found.set(name, '(bundled)');
  }
  return found;
}

/** Step 2: one tarball per package, with the manifest pnpm wrote into it checked. */
async function pack(progress: Progress, packDir: string): Promise<Map<PackageName, Packed>> {
  const packed = new Map<PackageName, Packed>();
  for (const pkg of PACKAGES) {
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', packDir, '--json'], {
      cwd: path.join(ROOT, pkg.dir),
      timeoutMs: 120_000,
    });
    const json = stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1);
    const result = JSON.parse(json) as { filename: string; files: { path: string }[] };
    const tarball = path.resolve(packDir, result.filename);
    const { stdout: text } = await run('tar', ['-xOzf', tarball, 'package/package.json'], {
      cwd: packDir,
      timeoutMs: 30_000,
    });
    const manifest = JSON.parse(text) as Manifest;

    const problems: string[] = [];
    if (manifest.name !== pkg.name) problems.push(`it is named ${manifest.name}`);
    const contents = new Set(result.files.map((file) => path.posix.normalize(file.path)));
    const absent = entryFiles(manifest).filter((entry) => !contents.has(entry));
    if (absent.length > 0) problems.push(`its entry points are not in the tarball: ${absent.join(', ')}`);
    for (const field of [...INSTALLED_FIELDS, 'devDependencies'] as const) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (range.startsWith('workspace:')) problems.push(`${field}.${name} is still "${range}"`);
      }
    }
    const dependencies = installedDependencies(manifest);
    const forbidden = FORBIDDEN_DEPENDENCIES.filter((name) => dependencies.has(name));
    if (forbidden.length > 0) problems.push(`it depends on ${forbidden.join(', ')}`);
    const queueport = [...dependencies.keys()].filter((name) => name.startsWith('@queueport/'));
    const core = packed.get('@queueport/core');
    if (pkg.name !== '@queueport/core') {
      if (queueport.join() !== '@queueport/core') {
        problems.push(`its queueport dependencies are [${queueport.join(', ')}], not just @queueport/core`);
      } else if (core && dependencies.get('@queueport/core') !== core.version) {
        problems.push(
          `it wants @queueport/core@${dependencies.get('@queueport/core')}, packed is ${core.version}`,
        );
      }
    } else if (queueport.length > 0) {
      problems.push(`it depends on ${queueport.join(', ')}`);
    }
    if (problems.length > 0) {
      throw new CheckFailed(`packed ${pkg.name} (${tarball}):\n  ${problems.join('\n  ')}`);
    }

    packed.set(pkg.name, { name: pkg.name, version: manifest.version, tarball, manifest });
    const peer = (name: string) => {
      if (manifest.peerDependencies?.[name] === undefined) return '';
      return manifest.peerDependenciesMeta?.[name]?.optional ? ' (optional peer, not installed)' : ' (peer)';
    };
    const shown = [...dependencies].map(([name, range]) => `${name} ${range}${peer(name)}`).join(', ');
    progress.detail(
      `${pkg.name}@${manifest.version} -> ${path.basename(tarball)} (${contents.size} files); depends on: ${shown || 'nothing'}`,
    );
  }
  return packed;
}

/**
 * The environment for npm and node in the scratch project: what `pnpm run` adds for a script
 * (npm_package_*, npm_lifecycle_*, npm_execpath pointing at pnpm, ...), NODE_OPTIONS (which could
 * carry `--conditions=source` or `--import tsx`), NODE_PATH and the workspace's node_modules/.bin
 * on PATH are dropped, so nothing from this repository can leak in. Other npm_config_* settings
 * (a registry mirror, a cache dir) are kept: CI may need them to reach a registry at all.
 */
function scratchEnv(): NodeJS.ProcessEnv {
  const dropped = new Set(['NODE_OPTIONS', 'NODE_PATH', 'INIT_CWD', 'NODE']);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (dropped.has(key) || /^pnpm_/i.test(key)) continue;
    if (/^npm_(package_|lifecycle_|execpath$|node_execpath$|command$|config_user_agent$)/.test(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !isInside(path.resolve(dir), ROOT))
    .join(path.delimiter);
  return env;
}

/** Step 3: a scratch project under the OS temp dir with the three tarballs installed by npm. */
async function install(progress: Progress, scratch: string, packed: Map<PackageName, Packed>): Promise<void> {
  if (isInside(scratch, ROOT)) throw new CheckFailed(`the scratch dir ${scratch} is inside the repository`);
  for (let dir = path.dirname(scratch); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules'))) {
      throw new CheckFailed(
        `${path.join(dir, 'node_modules')} exists: Node would resolve from it too, so the scratch project would not be alone (set TMPDIR elsewhere)`,
      );
    }
    if (dir === path.dirname(dir)) break;
  }
  const env = scratchEnv();
  const { stdout: npmVersion } = await run('npm', ['--version'], { cwd: scratch, env, timeoutMs: 30_000 });
  progress.detail(`scratch project ${scratch} (node ${process.versions.node}, npm ${npmVersion.trim()})`);

  // How the local packages resolve. `npm install <tarballs>` alone works: memory's and
  // conformance's dependency on @queueport/core@0.1.0 is met by the core tarball installed at the
  // top level, so npm places no other copy. But npm still asks the registry for @queueport/core's
  // packument while it builds the tree (a 404 today) — so whether this check passes would depend
  // on what the public registry holds under that name. The override makes every @queueport/*
  // edge, at any depth, resolve to the root project's own dependency ("$name" means "the spec the
  // root package.json gives it", here the file: tarball npm records on install), and npm then
  // never asks the registry for @queueport/* at all. Verified below from npm's http log and from
  // package-lock.json.
  const overrides = Object.fromEntries(PACKAGES.map((pkg) => [pkg.name, `$${pkg.name}`]));
  await writeFile(
    path.join(scratch, 'package.json'),
    `${JSON.stringify({ private: true, type: 'module', overrides }, null, 2)}\n`,
  );
  const tarballs = PACKAGES.map((pkg) => packed.get(pkg.name)!.tarball);
  const { stdout, stderr } = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel', 'http', ...tarballs],
    { cwd: scratch, env, timeoutMs: 300_000 },
  );
  const added = stdout.split('\n').find((line) => /^(added|changed|up to date)/.test(line.trim()));
  progress.detail(`npm install --no-audit --no-fund ${tarballs.map((t) => path.basename(t)).join(' ')}`);
  progress.detail(`  ${added?.trim() ?? stdout.trim()}`);

  const fetched = [...stderr.matchAll(/\bGET \d{3} (\S+)/g)].map((match) => match[1]!);
  const asked = fetched.filter((url) => /@queueport(%2f|\/)/i.test(url));
  if (asked.length > 0) {
    throw new CheckFailed(`npm asked the registry for queueport packages: ${asked.join(', ')}`);
  }
  progress.detail(`  ${fetched.length} registry requests, none for @queueport/*`);

  const lock = await readJson<{ packages: Record<string, { version?: string; resolved?: string }> }>(
    path.join(scratch, 'package-lock.json'),
  );
  const problems: string[] = [];
  const installed: string[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '') continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    installed.push(`${name}@${entry.version}`);
    if (!name.startsWith('@queueport/')) continue;
    const expected = packed.get(name as PackageName);
    const resolved = entry.resolved?.startsWith('file:')
      ? path.resolve(scratch, entry.resolved.slice(5))
      : '';
    if (!expected) problems.push(`${key} is not one of the packed packages`);
    else if (key !== `node_modules/${name}`) problems.push(`${key} is a second, nested copy`);
    else if (resolved !== expected.tarball)
      problems.push(`${key} came from ${entry.resolved}, not the tarball`);
  }
  if (problems.length > 0) throw new CheckFailed(`package-lock.json:\n  ${problems.join('\n  ')}`);
  progress.detail(`  ${installed.length} packages: ${installed.sort().join(', ')}`);
  progress.detail('  @queueport/core, memory and conformance: one copy each, resolved to the local tarballs');
}

const isPackageRoot = (dir: string) => {
  const parent = path.dirname(dir);
  const base = path.basename(parent);
  return (
    base === 'node_modules' ||
    (base.startsWith('@') && path.basename(path.dirname(parent)) === 'node_modules')
  );
};

/** Step 4: nothing in node_modules is, builds or fetches a native module. */
async function verifyNoNative(progress: Progress, scratch: string): Promise<void> {
  const modules = path.join(scratch, 'node_modules');
  const found: string[] = [];
  let files = 0;
  let packages = 0;
  for await (const { file, directory } of walk(modules)) {
    const relative = path.relative(scratch, file);
    const base = path.basename(file);
    if (directory) {
      if (FORBIDDEN_DIRECTORIES.has(base)) found.push(`${relative}/ (a ${base} directory)`);
      continue;
    }
    files += 1;
    if (base.endsWith('.node')) found.push(`${relative} (a native module)`);
    if (base === 'binding.gyp') found.push(`${relative} (a node-gyp build)`);
    if (base !== 'package.json' || !isPackageRoot(path.dirname(file))) continue;
    packages += 1;
    const manifest = await readJson<Manifest>(file);
    if (manifest.gypfile) found.push(`${relative} (gypfile: true)`);
    for (const script of INSTALL_SCRIPTS) {
      const command = manifest.scripts?.[script];
      if (command) found.push(`${relative} (${script} script: ${command})`);
    }
  }
  if (found.length > 0)
    throw new CheckFailed(`native build material under node_modules:\n  ${found.join('\n  ')}`);
  progress.detail(
    `${packages} packages, ${files} files: no *.node, no binding.gyp, no gypfile or install scripts, no better-sqlite3/ or pg/`,
  );
}

/** Step 5: the suite from the installed packages, under plain node, as ESM and as CommonJS. */
async function runPrograms(progress: Progress, scratch: string, seed: number): Promise<void> {
  const env = scratchEnv();
  for (const program of ['check.mjs', 'check.cjs']) {
    await copyFile(path.join(HERE, 'scratch', program), path.join(scratch, program));
    const started = performance.now();
    const { stdout, stderr } = await run(process.execPath, [program, String(seed)], {
      cwd: scratch,
      env,
      timeoutMs: 120_000,
    });
    progress.detail(`node ${program} ${seed} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    progress.detail(`${stdout}${stderr}`.trimEnd().replace(/^/gm, '  '));
  }
}

async function main(): Promise<number> {
  const { keep, rebuild, seed } = parseCli();
  const progress = new Progress();
  const temporary: string[] = [];
  const cleanUp = () => {
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  };
  const interrupted = (signal: NodeJS.Signals) => {
    killRunning();
    if (!keep) cleanUp();
    console.error(`\ninterrupted by ${signal}${keep ? `; kept ${temporary.join(' and ')}` : ''}`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  console.log(`install-alone: @queueport/conformance from its tarball, in a scratch project (seed ${seed})`);
  try {
    await progress.step('dist of core, memory and conformance', () => ensureDist(progress, rebuild));
    const packDir = await mkdtemp(path.join(os.tmpdir(), 'queueport-pack-'));
    temporary.push(packDir);
    const packed = await progress.step('pnpm pack', () => pack(progress, packDir));
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'queueport-install-alone-'));
    temporary.push(scratch);
    await progress.step('npm install into a scratch project', () => install(progress, scratch, packed));
    await progress.step('no native modules', () => verifyNoNative(progress, scratch));
    await progress.step('conformance from plain node (ESM, CommonJS)', () =>
      runPrograms(progress, scratch, seed),
    );
    console.log(`\ninstall-alone: passed\n${progress.summary()}`);
    return 0;
  } catch (error) {
    const message =
      error instanceof CheckFailed ? error.message : ((error as Error).stack ?? messageOf(error));
    console.error(`\ninstall-alone: FAILED\n${message}`);
    if (!keep && temporary.length > 0) console.error('(rerun with --keep to inspect the scratch project)');
    return 1;
  } finally {
    if (keep) for (const dir of temporary) console.log(`kept ${dir}`);
    else await Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

process.exitCode = await main();
