/**
 * Proves that the packed packages install and work alone, outside this repository, the way a
 * user gets them: the tarballs of every published workspace package installed with npm into a scratch project
 * under the OS temp dir (with the provider clients they take as peers), then
 *   - the conformance suite run against the memory driver from plain `node`, as ESM and as
 *     CommonJS (what an adapter author does, with no native module anywhere);
 *   - an application's programs type-checked with tsc (strict, skipLibCheck: false, under node16,
 *     bundler and node10 resolution), compiled and run as ESM and as CommonJS: a typed queue,
 *     publish and consume, and a QueueError from a driver of the other module format;
 *   - every entry point of every package type-checked and loaded from both formats.
 *
 *   pnpm check:install [--keep] [--rebuild] [--seed N]
 *
 *   --keep     leave the scratch project and the tarballs in place and print where they are
 *   --rebuild  build the packages even if their dist/ looks current
 *   --seed N   the fast-check seed for the conformance programs (random by default, always printed)
 *
 * Needs pnpm, npm and tar on PATH and the npm registry reachable (for fast-check, ajv, ...).
 * Exits 1 with the reason on the first check that fails.
 */

import { existsSync, rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckFailed, killRunning, messageOf, Progress, readJson, run, walk } from './support';
import { ensureDist, type Packed, packAll } from './tarballs';
import { INSTALLED_FIELDS, type Manifest, PACKAGES, type PackageName, ROOT } from './workspace-packages';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/**
 * The only queueport packages each published package may depend on, and how. An adapter author
 * installs conformance and memory with core alone: no ledger, no webhook. The package list itself
 * comes from the workspace (workspace-packages.ts); a package this table does not know fails the
 * check until someone decides what it may depend on.
 */
const QUEUEPORT_DEPENDENCIES: Record<PackageName, Record<string, 'dependency' | 'optional peer'>> = {
  '@queueport/core': {},
  '@queueport/memory': { '@queueport/core': 'dependency' },
  '@queueport/bullmq': { '@queueport/core': 'dependency' },
  '@queueport/sqs': { '@queueport/core': 'dependency' },
  '@queueport/infrai': { '@queueport/core': 'dependency' },
  '@queueport/ledger': { '@queueport/core': 'dependency' },
  '@queueport/webhook': {
    '@queueport/core': 'dependency',
    '@queueport/ledger': 'dependency',
    '@queueport/conformance': 'optional peer',
  },
  '@queueport/conformance': { '@queueport/core': 'dependency' },
  '@queueport/otel': { '@queueport/core': 'dependency' },
  '@queueport/payload-s3': { '@queueport/core': 'dependency' },
  '@queueport/postgres': { '@queueport/core': 'dependency' },
  '@queueport/rabbitmq': { '@queueport/core': 'dependency' },
  // The embedded defaults (memory, the Infrai simulator) and the suite are what `queueport drill`
  // runs with no configuration; the other adapters are loaded only when a URL names them.
  '@queueport/cli': {
    '@queueport/core': 'dependency',
    '@queueport/conformance': 'dependency',
    '@queueport/ledger': 'dependency',
    '@queueport/webhook': 'dependency',
    '@queueport/memory': 'dependency',
    '@queueport/infrai': 'dependency',
    '@queueport/bullmq': 'optional peer',
    '@queueport/sqs': 'optional peer',
    '@queueport/postgres': 'optional peer',
    '@queueport/rabbitmq': 'optional peer',
  },
};
/**
 * Database clients that compile (better-sqlite3) or pull in what does (pg-native via pg): never
 * installed for a user who did not ask, so only ever optional peers, and only of the ledger, of
 * the PostgreSQL queue driver (it loads pg when a queue is opened, and says `npm i pg` without
 * it) and of the CLI, which opens the ledger its configuration names (a PostgreSQL user of the
 * CLI never compiles SQLite; the SQLite ledger's error names `npm i better-sqlite3`).
 */
const NATIVE_CLIENTS = ['better-sqlite3', 'pg'];
const NATIVE_CLIENTS_ALLOWED_IN: readonly PackageName[] = [
  '@queueport/ledger',
  '@queueport/postgres',
  '@queueport/cli',
];
/**
 * Provider clients a driver takes as required peers, never as dependencies: the application picks
 * their versions, and hands the driver its own ioredis connection, which must be an instance of
 * the one ioredis the application has. Installed in the scratch project at the workspace's
 * versions (npm would otherwise pick the newest in range), one copy each. Read from each
 * package's `peerDependencies` (every required peer not of ours is a provider client: the other
 * peers of this workspace are optional), so this list cannot drift from the manifests.
 */
const CLIENT_PEERS: Partial<Record<PackageName, readonly string[]>> = Object.fromEntries(
  PACKAGES.map(({ name, manifest }): [PackageName, string[]] => [
    name,
    Object.keys(manifest.peerDependencies ?? {}).filter(
      (peer) => !peer.startsWith('@queueport/') && manifest.peerDependenciesMeta?.[peer]?.optional !== true,
    ),
  ]).filter(([, peers]) => peers.length > 0),
);
const CLIENTS = Object.values(CLIENT_PEERS).flat() as string[];
/**
 * Native build material a provider client brings, matched by the package that holds it. BullMQ
 * depends on msgpackr, whose optional dependency msgpackr-extract has an install script, a
 * binding.gyp and prebuilt *.node files in one package per platform; msgpackr works without it.
 * Not ours to remove, and a BullMQ user has it already. It is tolerated only where that client
 * brings it, only if no package of ours but the client's driver reaches it, and only if the
 * install compiled nothing (the prebuilt binary was found).
 */
const NATIVE_FROM_CLIENTS: ReadonlyArray<{ pattern: RegExp; client: string }> = [
  { pattern: /^(msgpackr-extract|@msgpackr-extract\/.+)$/, client: 'bullmq' },
];
/** The only queueport package the conformance suite brings along. */
const WITH_CONFORMANCE: readonly PackageName[] = ['@queueport/conformance', '@queueport/core'];
/** What the conformance suite and its dependencies must never bring along: every other package of ours. */
const NOT_FOR_ADAPTER_AUTHORS = [
  ...PACKAGES.map((pkg) => pkg.name).filter((name) => !WITH_CONFORMANCE.includes(name)),
  ...NATIVE_CLIENTS,
  ...CLIENTS,
];
/**
 * Type packages a TypeScript user adds: @types/node for Node's own modules (ioredis's
 * declarations reference it too), @types/pg because the declarations of
 * @queueport/ledger/postgres name pg's `Pool` (pg ships no types), @opentelemetry/api because
 * @queueport/otel's declarations take its MeterProvider and TracerProvider (a user of that package
 * has it: it is what the package reports to). Installed at the versions the workspace uses.
 */
const TYPE_PACKAGES = ['@types/node', '@types/pg', '@opentelemetry/api'];
/** Entry points that load an optional peer this project leaves out; they must fail naming it. */
const NEEDS_ABSENT_PEER: Record<string, string> = {
  '@queueport/ledger/testing': 'vitest',
  '@queueport/conformance/vitest': 'vitest',
};
/**
 * Entry points left out of the node10 type-check: their declarations import fast-check, whose own
 * declarations resolve pure-rand through "exports", which node10 cannot read. Not ours to fix;
 * these entries are type-checked under node16 and bundler.
 */
const NOT_NODE10: Record<string, string> = {
  '@queueport/conformance': 'fast-check',
  '@queueport/conformance/vitest': 'fast-check',
  '@queueport/webhook/conformance': 'fast-check',
};
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;
/** The compiler the type-checks run: the workspace's TypeScript, reading only the scratch project. */
const TSC = createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');

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

/** Names of the packages a manifest makes npm install (or asks for, as peers), with their ranges. */
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

/** Step 2 (after packing): each packed manifest depends on what QUEUEPORT_DEPENDENCIES allows, as it says. */
function checkDependencies(progress: Progress, packed: Map<PackageName, Packed>): void {
  const unknown = Object.keys(QUEUEPORT_DEPENDENCIES).filter((name) => !packed.has(name));
  if (unknown.length > 0) {
    throw new CheckFailed(
      `QUEUEPORT_DEPENDENCIES names ${unknown.join(', ')}, which the workspace does not publish`,
    );
  }
  for (const { name, manifest, tarball } of packed.values()) {
    const problems: string[] = [];
    const dependencies = installedDependencies(manifest);
    const optionalPeer = (dep: string) =>
      manifest.peerDependencies?.[dep] !== undefined &&
      manifest.peerDependenciesMeta?.[dep]?.optional === true;
    const allowed = QUEUEPORT_DEPENDENCIES[name];
    if (!allowed) {
      throw new CheckFailed(
        `${name} is a published workspace package, but install-alone.ts (QUEUEPORT_DEPENDENCIES) does not say which queueport packages it may depend on`,
      );
    }
    const queueport = [...dependencies.keys()].filter((dep) => dep.startsWith('@queueport/')).sort();
    const expected = Object.keys(allowed).sort();
    if (queueport.join() !== expected.join()) {
      problems.push(`its queueport dependencies are [${queueport.join(', ')}], not [${expected.join(', ')}]`);
    }
    for (const [dep, how] of Object.entries(allowed)) {
      const version = packed.get(dep as PackageName)?.version;
      if (how === 'dependency' && manifest.dependencies?.[dep] !== version) {
        problems.push(
          `it should depend on ${dep}@${version} (packed), it has ${JSON.stringify(manifest.dependencies?.[dep])}`,
        );
      }
      // Whether the range admits the packed version is npm's to say: the install below has every
      // package present, npm warns (ERESOLVE) about a peer it does not admit, and that fails.
      if (how === 'optional peer' && !optionalPeer(dep)) {
        problems.push(
          `${dep} should be an optional peer, it is ${JSON.stringify(manifest.peerDependencies?.[dep])}`,
        );
      }
    }
    for (const client of NATIVE_CLIENTS) {
      if (!dependencies.has(client)) continue;
      if (!NATIVE_CLIENTS_ALLOWED_IN.includes(name)) problems.push(`it depends on ${client}`);
      else if (
        !optionalPeer(client) ||
        manifest.dependencies?.[client] ||
        manifest.optionalDependencies?.[client]
      ) {
        problems.push(`${client} must be an optional peer only (npm would install it otherwise)`);
      }
    }
    for (const [owner, clients] of Object.entries(CLIENT_PEERS)) {
      for (const client of clients ?? []) {
        if (owner !== name) {
          if (dependencies.has(client)) problems.push(`it depends on ${client}, the client of ${owner}`);
        } else if (
          manifest.peerDependencies?.[client] === undefined ||
          optionalPeer(client) ||
          manifest.dependencies?.[client] ||
          manifest.optionalDependencies?.[client]
        ) {
          problems.push(
            `${client} must be a required peer only (the application's own copy is the one used)`,
          );
        }
      }
    }
    if (manifest.bundleDependencies) problems.push('it bundles dependencies');
    if (problems.length > 0) {
      throw new CheckFailed(`packed ${name} (${tarball}):\n  ${problems.join('\n  ')}`);
    }
    const peer = (dep: string) => {
      if (manifest.peerDependencies?.[dep] === undefined) return '';
      return optionalPeer(dep) ? ' (optional peer)' : ' (peer)';
    };
    const shown = [...dependencies].map(([dep, range]) => `${dep} ${range}${peer(dep)}`).join(', ');
    progress.detail(`${name}: ${shown || 'no dependencies'}`);
  }
}

/**
 * The environment for npm, tsc and node in the scratch project: what `pnpm run` adds for a
 * script (npm_package_*, npm_lifecycle_*, npm_execpath pointing at pnpm, ...), NODE_OPTIONS
 * (which could carry `--conditions=@queueport/source` or `--import tsx`), NODE_PATH and the
 * workspace's node_modules/.bin on PATH are dropped, so nothing from this repository can leak in.
 * Other npm_config_* settings (a registry mirror, a cache dir) are kept: CI may need them to reach
 * a registry at all.
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

interface LockEntry {
  version?: string;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
type Lock = { packages: Record<string, LockEntry> };

const nameOf = (key: string) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Step 3: a scratch project under the OS temp dir with every tarball installed by npm. */
async function install(progress: Progress, scratch: string, packed: Map<PackageName, Packed>): Promise<Lock> {
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
  const workspaceVersions = new Map(
    await Promise.all(
      [...TYPE_PACKAGES, ...CLIENTS].map(
        async (name) =>
          [
            name,
            (await readJson<Manifest>(path.join(ROOT, 'node_modules', name, 'package.json'))).version,
          ] as const,
      ),
    ),
  );
  const pinned = [...workspaceVersions].map(([name, version]) => `${name}@${version}`);
  const { stdout, stderr } = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel', 'http', ...tarballs, ...pinned],
    { cwd: scratch, env, timeoutMs: 300_000 },
  );
  const added = stdout.split('\n').find((line) => /^(added|changed|up to date)/.test(line.trim()));
  progress.detail(
    `npm install --no-audit --no-fund ${[...tarballs.map((t) => path.basename(t)), ...pinned].join(' ')}`,
  );
  progress.detail(`  ${added?.trim() ?? stdout.trim()}`);

  const conflicts = stderr
    .split('\n')
    .filter((line) => /ERESOLVE|Could not resolve dependency|Conflicting peer/.test(line));
  if (conflicts.length > 0) {
    throw new CheckFailed(`npm could not satisfy a dependency or peer range:\n  ${conflicts.join('\n  ')}`);
  }
  const fetched = [...stderr.matchAll(/\bGET \d{3} (\S+)/g)].map((match) => match[1]!);
  const asked = fetched.filter((url) => /@queueport(%2f|\/)/i.test(url));
  if (asked.length > 0) {
    throw new CheckFailed(`npm asked the registry for queueport packages: ${asked.join(', ')}`);
  }
  progress.detail(`  ${fetched.length} registry requests, none for @queueport/*`);

  const lock = await readJson<Lock>(path.join(scratch, 'package-lock.json'));
  const problems: string[] = [];
  const installed: string[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '') continue;
    const name = nameOf(key);
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
  for (const pkg of PACKAGES) {
    if (!lock.packages[`node_modules/${pkg.name}`]) problems.push(`${pkg.name} was not installed`);
  }
  for (const client of CLIENTS) {
    const copies = Object.keys(lock.packages).filter((key) => key !== '' && nameOf(key) === client);
    const version = lock.packages[`node_modules/${client}`]?.version;
    if (copies.length !== 1 || version !== workspaceVersions.get(client)) {
      problems.push(
        `${client}: ${copies.join(', ') || 'not installed'} (${version}), not one copy at node_modules/${client}@${workspaceVersions.get(client)}`,
      );
    }
  }
  if (problems.length > 0) throw new CheckFailed(`package-lock.json:\n  ${problems.join('\n  ')}`);
  progress.detail(`  ${installed.length} packages: ${installed.sort().join(', ')}`);
  progress.detail(`  ${PACKAGES.map((pkg) => pkg.name).join(', ')}: one copy each, from the local tarballs`);
  progress.detail(`  ${CLIENTS.map((c) => `${c}@${workspaceVersions.get(c)}`).join(', ')}: one copy each`);
  return lock;
}

/**
 * What installing `root` alone brings, from package-lock.json: its dependencies, optional
 * dependencies and required peers, transitively, each found where Node would (nested first).
 */
function closureOf(lock: Lock, root: string): Set<string> {
  const seen = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    for (let at = from; ; ) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (lock.packages[candidate]) return candidate;
      if (!at) return undefined;
      const cut = at.lastIndexOf('/node_modules/');
      at = cut < 0 ? '' : at.slice(0, cut);
    }
  };
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const entry = lock.packages[key]!;
    const peers = Object.keys(entry.peerDependencies ?? {}).filter(
      (name) => !entry.peerDependenciesMeta?.[name]?.optional,
    );
    for (const name of [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...peers,
    ]) {
      const found = locate(key, name);
      if (found) visit(found);
    }
  };
  const start = `node_modules/${root}`;
  if (lock.packages[start]) visit(start);
  return new Set([...seen].map(nameOf));
}

/** Step 3b: installing the suite alone would bring none of what an adapter author must not need. */
function verifyConformanceAlone(progress: Progress, lock: Lock): void {
  const closure = closureOf(lock, '@queueport/conformance');
  const found = NOT_FOR_ADAPTER_AUTHORS.filter((name) => closure.has(name));
  if (found.length > 0) {
    throw new CheckFailed(`installing @queueport/conformance alone would bring ${found.join(', ')}`);
  }
  progress.detail(
    `@queueport/conformance alone brings ${closure.size - 1} packages: ${[...closure]
      .filter((n) => n !== '@queueport/conformance')
      .sort()
      .join(', ')}`,
  );
  progress.detail(`  none of ${NOT_FOR_ADAPTER_AUTHORS.join(', ')}`);
}

const isPackageRoot = (dir: string) => {
  const parent = path.dirname(dir);
  const base = path.basename(parent);
  return (
    base === 'node_modules' ||
    (base.startsWith('@') && path.basename(path.dirname(parent)) === 'node_modules')
  );
};

/** The package a path under node_modules belongs to (the innermost), and that package's directory. */
function ownerOf(relative: string): { name: string; dir: string } | undefined {
  const parts = relative.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return undefined;
  const end = at + 1 + (parts[at + 1]!.startsWith('@') ? 2 : 1);
  return { name: parts.slice(at + 1, end).join('/'), dir: parts.slice(0, end).join(path.sep) };
}

/**
 * Step 4: nothing in node_modules is, builds or fetches a native module, except what a provider
 * client brings (NATIVE_FROM_CLIENTS), and that only where the client is a peer of the package
 * that reaches it, and only if its install compiled nothing.
 */
async function verifyNoNative(progress: Progress, scratch: string, lock: Lock): Promise<void> {
  const modules = path.join(scratch, 'node_modules');
  // `builds`: what makes npm run node-gyp (or a script that may), as opposed to a prebuilt binary.
  const found: { file: string; kind: string; builds?: true }[] = [];
  let files = 0;
  let packages = 0;
  for await (const { file, directory } of walk(modules)) {
    const relative = path.relative(scratch, file);
    const base = path.basename(file);
    if (directory) {
      // The package itself (node_modules/pg), not @types/pg.
      if (NATIVE_CLIENTS.includes(base) && path.basename(path.dirname(file)) === 'node_modules') {
        found.push({ file: `${relative}/`, kind: `the ${base} package` });
      }
      continue;
    }
    files += 1;
    if (base.endsWith('.node')) found.push({ file: relative, kind: 'a native module' });
    if (base === 'binding.gyp') found.push({ file: relative, kind: 'a node-gyp build', builds: true });
    if (base !== 'package.json' || !isPackageRoot(path.dirname(file))) continue;
    packages += 1;
    const manifest = await readJson<Manifest>(file);
    if (manifest.gypfile) found.push({ file: relative, kind: 'gypfile: true', builds: true });
    for (const script of INSTALL_SCRIPTS) {
      const command = manifest.scripts?.[script];
      if (command) found.push({ file: relative, kind: `${script} script: ${command}`, builds: true });
    }
  }

  const closures = new Map<string, Set<string>>();
  const closure = (name: string) => {
    if (!closures.has(name)) closures.set(name, closureOf(lock, name));
    return closures.get(name)!;
  };
  const problems: string[] = [];
  const tolerated = new Map<string, { client: string; dir: string; what: string[]; builds: boolean }>();
  for (const { file, kind, builds } of found) {
    const what = `${file} (${kind})`;
    const owner = ownerOf(file);
    const rule = owner && NATIVE_FROM_CLIENTS.find(({ pattern }) => pattern.test(owner.name));
    if (!owner || !rule) {
      problems.push(what);
      continue;
    }
    if (!closure(rule.client).has(owner.name)) {
      problems.push(`${what}: ${owner.name} is not brought by ${rule.client}`);
      continue;
    }
    const reachedBy = PACKAGES.filter((pkg) => closure(pkg.name).has(owner.name));
    const unexpected = reachedBy.filter((pkg) => !CLIENT_PEERS[pkg.name]?.includes(rule.client));
    if (unexpected.length > 0) {
      problems.push(`${what}: installing ${unexpected.map((pkg) => pkg.name).join(', ')} brings it`);
      continue;
    }
    const entry = tolerated.get(owner.name) ?? {
      client: rule.client,
      dir: owner.dir,
      what: [],
      builds: false,
    };
    entry.what.push(`${path.relative(owner.dir, file)}: ${kind}`);
    entry.builds ||= builds === true;
    tolerated.set(owner.name, entry);
  }
  // node-gyp writes build/ when it compiles: with a prebuilt binary for this platform there is none.
  for (const [name, { dir, builds }] of tolerated) {
    if (builds && existsSync(path.join(scratch, dir, 'build'))) {
      problems.push(`${dir}/build/ exists: npm compiled ${name} instead of using its prebuilt binary`);
    }
  }
  if (problems.length > 0)
    throw new CheckFailed(`native build material under node_modules:\n  ${problems.join('\n  ')}`);
  progress.detail(
    `${packages} packages, ${files} files: no *.node, no binding.gyp, no gypfile or install scripts, no better-sqlite3 or pg package${tolerated.size > 0 ? ', except:' : ''}`,
  );
  for (const [name, { client, what, builds }] of tolerated) {
    const reachedBy = PACKAGES.filter((pkg) => closure(pkg.name).has(name)).map((pkg) => pkg.name);
    progress.detail(
      `  ${name} (${what.join('; ')}): brought by ${client}, reached only from ${reachedBy.join(', ')}${builds ? '; compiled nothing' : ''}`,
    );
  }
}

/** Step 5: the suite from the installed packages, under plain node, as ESM and as CommonJS. */
async function runConformancePrograms(progress: Progress, scratch: string, seed: number): Promise<void> {
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

/**
 * entries.mts and entries.cts, written into the scratch project: a type-only import of every
 * entry point of every packed package (so tsc reads and checks every declaration file a user can
 * reach), and at run time an import (ESM) or require (CommonJS) of each. An entry that needs an
 * optional peer this project leaves out must fail naming that peer, and nothing else may fail.
 */
function entriesProgram(
  packed: Map<PackageName, Packed>,
  format: 'esm' | 'cjs',
  leaveOut: Record<string, string> = {},
): string {
  const specifiers = PACKAGES.flatMap((pkg) =>
    Object.keys((packed.get(pkg.name)!.manifest.exports ?? {}) as Record<string, unknown>).map(
      (subpath) => pkg.name + subpath.slice(1),
    ),
  ).filter((specifier) => leaveOut[specifier] === undefined);
  const imports = specifiers.map((specifier, i) => `import type * as entry${i} from '${specifier}';`);
  const table = specifiers.map((specifier) => [specifier, NEEDS_ABSENT_PEER[specifier] ?? null]);
  const load = format === 'esm' ? 'await import(specifier)' : 'require(specifier)';
  const resolve =
    format === 'esm' ? 'fileURLToPath(import.meta.resolve(specifier))' : 'require.resolve(specifier)';
  const extension = format === 'esm' ? '.js' : '.cjs';
  const body = `
const entries: ReadonlyArray<readonly [string, string | null]> = ${JSON.stringify(table)};
const modules = path.join(process.cwd(), 'node_modules') + path.sep;
const loaded: string[] = [];
const needPeer: string[] = [];
function fail(message: string): never {
  console.error(\`entries.${format === 'esm' ? 'mjs' : 'cjs'}: \${message}\`);
  process.exit(1);
}
${format === 'esm' ? '' : 'async function main(): Promise<void> {\n'}for (const [specifier, absentPeer] of entries) {
  let exported: Record<string, unknown>;
  try {
    exported = ${load};
  } catch (error) {
    if (absentPeer !== null && String(error).includes(\`'\${absentPeer}'\`)) {
      needPeer.push(\`\${specifier} (needs \${absentPeer})\`);
      continue;
    }
    fail(\`loading \${specifier}: \${String(error)}\`);
  }
  if (absentPeer !== null) fail(\`\${specifier} loaded, although its optional peer \${absentPeer} is not installed\`);
  const file = ${resolve};
  if (!file.startsWith(modules) || !file.endsWith('${extension}')) fail(\`\${specifier} resolved to \${file}\`);
  if (Object.keys(exported).length === 0) fail(\`\${specifier} exports nothing\`);
  loaded.push(specifier);
}
console.log(\`${format}: loaded \${loaded.length} entry points (${extension}); \${needPeer.join(', ')} need their optional peer\`);
${format === 'esm' ? '' : '}\nmain().catch((error: unknown) => fail(String(error)));\n'}`;
  const header = [
    '// Generated by scripts/package-check/install-alone.ts: every entry point of every packed package.',
    ...(format === 'esm' ? ["import { fileURLToPath } from 'node:url';"] : []),
    "import path from 'node:path';",
    ...imports,
    `export type Entries = [${specifiers.map((_, i) => `typeof entry${i}`).join(', ')}];`,
  ];
  return `${header.join('\n')}\n${body}`;
}

/** tsc's output, one line per diagnostic, for the failure message. */
const diagnostics = (error: unknown) => messageOf(error).replace(/^/gm, '    ');

/**
 * Step 6: the application programs and the entries, type-checked by tsc in the scratch project
 * (strict, skipLibCheck: false) under three resolutions, at once:
 *   node16  app.mts, app.cts, entries.mts, entries.cts; compiled to out/ for step 7
 *   bundler app.mts, entries.mts (module: preserve), no emit
 *   node10  entries-node10.cts (module: commonjs; "exports" ignored, so typesVersions leads):
 *           every entry but NOT_NODE10's, no emit
 */
async function typeCheck(
  progress: Progress,
  scratch: string,
  packed: Map<PackageName, Packed>,
): Promise<void> {
  const env = scratchEnv();
  for (const file of [
    'app.mts',
    'app.cts',
    'tsconfig.node16.json',
    'tsconfig.bundler.json',
    'tsconfig.node10.json',
  ]) {
    await copyFile(path.join(HERE, 'scratch', file), path.join(scratch, file));
  }
  await writeFile(path.join(scratch, 'entries.mts'), entriesProgram(packed, 'esm'));
  await writeFile(path.join(scratch, 'entries.cts'), entriesProgram(packed, 'cjs'));
  await writeFile(path.join(scratch, 'entries-node10.cts'), entriesProgram(packed, 'cjs', NOT_NODE10));
  const { stdout: version } = await run(process.execPath, [TSC, '--version'], {
    cwd: scratch,
    env,
    timeoutMs: 30_000,
  });
  progress.detail(
    `tsc ${version.trim().replace(/^Version /, '')} (the workspace's compiler; it resolves only from ${scratch})`,
  );
  const failures: string[] = [];
  await Promise.all(
    ['node16', 'bundler', 'node10'].map(async (resolution) => {
      const started = performance.now();
      try {
        await run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`], {
          cwd: scratch,
          env,
          timeoutMs: 300_000,
        });
        progress.detail(
          `tsc -p tsconfig.${resolution}.json: no errors (${((performance.now() - started) / 1000).toFixed(1)} s)`,
        );
      } catch (error) {
        failures.push(`tsc -p tsconfig.${resolution}.json:\n${diagnostics(error)}`);
      }
    }),
  );
  if (failures.length > 0)
    throw new CheckFailed(`the type-check failed in ${scratch}:\n${failures.join('\n')}`);
}

/** Step 7: the compiled programs under plain node. */
async function runApplicationPrograms(progress: Progress, scratch: string): Promise<void> {
  const env = scratchEnv();
  for (const program of ['out/app.mjs', 'out/app.cjs', 'out/entries.mjs', 'out/entries.cjs']) {
    const started = performance.now();
    const { stdout, stderr } = await run(process.execPath, [program], {
      cwd: scratch,
      env,
      timeoutMs: 60_000,
    });
    progress.detail(`node ${program} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    progress.detail(`${stdout}${stderr}`.trimEnd().replace(/^/gm, '  '));
  }
}

/** The CLI's package: its bin is run as installed, from the scratch project's node_modules/.bin. */
const CLI = '@queueport/cli';
/** The clients the CLI's ledgers load; optional peers, so the scratch project has neither. */
const LEDGER_CLIENTS = [
  { client: 'better-sqlite3', ledger: { sqlite: 'ledger.db' }, env: {} },
  {
    client: 'pg',
    ledger: { postgresUrlEnv: 'QUEUEPORT_CHECK_LEDGER_URL' },
    env: { QUEUEPORT_CHECK_LEDGER_URL: 'postgres://127.0.0.1:9/none' },
  },
] as const;

/**
 * Step 8: the `queueport` bin as npm linked it, under plain node: it reports the packed version,
 * runs the conformance suite against a memory:// provider from a configuration file (the suite,
 * the memory adapter and fast-check all came with the CLI), and, with neither database client
 * installed, refuses each ledger with a configuration error (exit 2) naming the install line, so
 * a PostgreSQL user never needs better-sqlite3 and a SQLite user never needs pg.
 */
async function runCliAsInstalled(
  progress: Progress,
  scratch: string,
  packed: Map<PackageName, Packed>,
  seed: number,
): Promise<void> {
  const cli = packed.get(CLI);
  if (!cli) throw new CheckFailed(`${CLI} is not among the packed packages`);
  const env = scratchEnv();
  const bin = path.join(scratch, 'node_modules', '.bin', 'queueport');
  if (!existsSync(bin)) throw new CheckFailed(`npm linked no node_modules/.bin/queueport for ${CLI}`);
  const shown = (dir: string, args: readonly string[]) =>
    `(${path.basename(dir)}) queueport ${args.join(' ')}`;
  const project = async (name: string, config: unknown) => {
    const dir = path.join(scratch, 'cli', name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'queueport.config.json'), `${JSON.stringify(config, null, 2)}\n`);
    return dir;
  };

  const { stdout: version } = await run(bin, ['--version'], { cwd: scratch, env, timeoutMs: 30_000 });
  if (version.trim() !== cli.version) {
    throw new CheckFailed(`queueport --version printed "${version.trim()}", not the packed ${cli.version}`);
  }
  progress.detail(`queueport --version: ${version.trim()}`);

  const memory = await project('memory', { providers: { main: { url: 'memory://orders' } } });
  const args = ['conformance', '--provider', 'main', '--quick', '--seed', String(seed), '--json'];
  const started = performance.now();
  const { stdout } = await run(bin, args, { cwd: memory, env, timeoutMs: 120_000 });
  const report = JSON.parse(stdout) as { ok?: boolean; checks?: { status: string }[] };
  const count = (status: string) => report.checks?.filter((check) => check.status === status).length ?? 0;
  if (report.ok !== true || count('failed') > 0 || count('passed') === 0) {
    throw new CheckFailed(
      `${shown(memory, args)}: ok ${report.ok}, ${count('passed')} passed, ${count('failed')} failed`,
    );
  }
  progress.detail(
    `${shown(memory, args)}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );

  for (const { client, ledger, env: extra } of LEDGER_CLIENTS) {
    const dir = await project(client, { providers: { main: { url: 'memory://orders' } }, ledger });
    const ledgerArgs = ['ledger', 'show', 'order_1:paid'];
    const {
      code,
      stdout: out,
      stderr,
    } = await run(bin, ledgerArgs, {
      cwd: dir,
      env: { ...env, ...extra },
      timeoutMs: 30_000,
      exitCodes: [0, 1, 2],
    });
    const said = `${out}${stderr}`.trim();
    if (code !== 2 || !said.includes(`npm i ${client}`)) {
      throw new CheckFailed(
        `${shown(dir, ledgerArgs)} without ${client} installed exited ${code}, expected 2 naming "npm i ${client}":\n  ${said}`,
      );
    }
    progress.detail(`${shown(dir, ledgerArgs)} without ${client}: exit 2, ${said.split('\n')[0]}`);
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

  console.log(`install-alone: every package from its tarball, in a scratch npm project (seed ${seed})`);
  try {
    await progress.step('dist of every package', () => ensureDist(progress, rebuild));
    const packDir = await mkdtemp(path.join(os.tmpdir(), 'queueport-pack-'));
    temporary.push(packDir);
    const packed = await progress.step('pnpm pack', async () => {
      const result = await packAll(progress, packDir);
      checkDependencies(progress, result);
      return result;
    });
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'queueport-install-alone-'));
    temporary.push(scratch);
    const lock = await progress.step('npm install into a scratch project', () =>
      install(progress, scratch, packed),
    );
    await progress.step('conformance alone: no ledger, webhook, provider or database client', async () =>
      verifyConformanceAlone(progress, lock),
    );
    await progress.step('no native modules', () => verifyNoNative(progress, scratch, lock));
    await progress.step('conformance from plain node (ESM, CommonJS)', () =>
      runConformancePrograms(progress, scratch, seed),
    );
    await progress.step('tsc: strict, skipLibCheck false (node16, bundler, node10)', () =>
      typeCheck(progress, scratch, packed),
    );
    await progress.step('typed queue and cross-build QueueError from plain node (ESM, CommonJS)', () =>
      runApplicationPrograms(progress, scratch),
    );
    await progress.step('the queueport bin as installed: the suite, and each ledger without its client', () =>
      runCliAsInstalled(progress, scratch, packed, seed),
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
