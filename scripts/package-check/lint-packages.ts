/**
 * Lints what we publish, from the tarballs themselves: packs every package, then for each one
 * checks its publishing metadata and declaration imports, and runs publint and
 * @arethetypeswrong/cli (attw) over the tarball.
 *
 *   pnpm check:packages [--keep] [--rebuild]
 *
 *   --keep     leave the tarballs (and their unpacked copies) in place and print where they are
 *   --rebuild  build the packages even if their dist/ looks current
 *
 * Every package is checked, and every problem found is printed, before it exits 1.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import ts from 'typescript';
import { CheckFailed, messageOf, Progress, readJson, run } from './support';
import { ensureDist, type Packed, packAll, SOURCE_CONDITION, unpackedDir } from './tarballs';
import { type Manifest, PACKAGES, ROOT } from './workspace-packages';

const USAGE = 'usage: node --import tsx scripts/package-check/lint-packages.ts [--keep] [--rebuild]';

/** What every package declares: the root workspace's Node range, so the two cannot drift. */
const rootManifest = await readJson<Manifest>(path.join(ROOT, 'package.json'));
const NODE_RANGE = rootManifest.engines?.node;

function parseCli(): { keep: boolean; rebuild: boolean } {
  try {
    const { values } = parseArgs({
      options: {
        keep: { type: 'boolean', default: false },
        rebuild: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return { keep: values.keep ?? false, rebuild: values.rebuild ?? false };
  } catch (error) {
    console.error(`${messageOf(error)}\n${USAGE}`);
    process.exit(2);
  }
}

/** `exports` as the workspace has it, minus the workspace's own condition: what must be packed. */
function withoutSourceCondition(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== SOURCE_CONDITION)
      .map(([key, inner]) => [key, withoutSourceCondition(inner)]),
  );
}

type ExportTarget = { import?: { types?: string }; require?: { types?: string } };

/** The metadata a user and npm read: license, engines, repository, changelog, exports. */
async function checkMetadata(packed: Packed, workspace: Manifest): Promise<string[]> {
  const { manifest, files } = packed;
  const problems: string[] = [];
  const has = new Set(files);
  if (!manifest.description) problems.push('no "description"');
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push('no "keywords"');
  if (manifest.license !== 'MIT')
    problems.push(`"license" is ${JSON.stringify(manifest.license)}, not "MIT"`);
  if (!manifest.files?.includes('LICENSE')) problems.push('"files" does not name LICENSE');
  if (!has.has('LICENSE')) problems.push('no LICENSE in the tarball');
  else {
    const [ours, theirs] = await Promise.all([
      readFile(path.join(ROOT, 'LICENSE'), 'utf8'),
      readFile(path.join(unpackedDir(path.dirname(packed.tarball), packed), 'LICENSE'), 'utf8'),
    ]);
    if (ours !== theirs) problems.push(`its LICENSE differs from the repository's (copy ${ROOT}/LICENSE)`);
  }
  if (!has.has('README.md')) problems.push('no README.md in the tarball');
  if (!has.has('CHANGELOG.md')) problems.push('no CHANGELOG.md in the tarball');
  else {
    const changelog = await readFile(
      path.join(unpackedDir(path.dirname(packed.tarball), packed), 'CHANGELOG.md'),
      'utf8',
    );
    if (!changelog.includes(`\n## ${manifest.version}\n`)) {
      problems.push(`CHANGELOG.md has no "## ${manifest.version}" entry (pnpm changeset version writes it)`);
    }
  }
  if (!NODE_RANGE) problems.push('the root package.json has no engines.node to compare with');
  else if (manifest.engines?.node !== NODE_RANGE) {
    problems.push(
      `engines.node is ${JSON.stringify(manifest.engines?.node)}, not "${NODE_RANGE}" as the root's`,
    );
  }
  const repository = manifest.repository;
  if (typeof repository !== 'object' || !repository.url) problems.push('no "repository" with a url');
  else if (repository.directory !== packed.dir) {
    problems.push(`repository.directory is ${JSON.stringify(repository.directory)}, not "${packed.dir}"`);
  }

  // publishConfig.exports is a second copy of exports: it must be exports minus the condition.
  const expected = withoutSourceCondition(workspace.exports);
  if (!isDeepStrictEqual(manifest.exports, expected)) {
    problems.push(
      `the packed "exports" is not the workspace's "exports" without "${SOURCE_CONDITION}": update publishConfig.exports\n    packed:   ${JSON.stringify(manifest.exports)}\n    expected: ${JSON.stringify(expected)}`,
    );
  }
  // Resolution that ignores "exports" (TypeScript's node10, old tools): `types` and
  // `typesVersions` lead to the CommonJS declarations, as `main` leads to the CommonJS build.
  const exportsMap = (manifest.exports ?? {}) as Record<string, ExportTarget>;
  const rootTypes = exportsMap['.']?.require?.types;
  if (manifest.types !== rootTypes) {
    problems.push(
      `"types" is ${JSON.stringify(manifest.types)}, not exports["."].require.types (${rootTypes})`,
    );
  }
  const expectedVersions: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (subpath === '.') continue;
    expectedVersions[subpath.slice(2)] = [target.require?.types ?? '(none)'];
  }
  const actualVersions = manifest.typesVersions?.['*'] ?? {};
  if (Object.keys(expectedVersions).length > 0 && !isDeepStrictEqual(actualVersions, expectedVersions)) {
    problems.push(
      `typesVersions["*"] does not map each subpath to its require.types: expected ${JSON.stringify(expectedVersions)}, found ${JSON.stringify(actualVersions)}`,
    );
  }
  return problems;
}

const BUILTINS = new Set(builtinModules);

const packageOf = (specifier: string) => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
};

/** The declaration file a relative import in `from` means, as TypeScript maps .js/.cjs/.mjs. */
function declarationFor(from: string, specifier: string): string {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const mapped = target.replace(/\.(c|m)?js$/, (_, kind: string | undefined) => `.d.${kind ?? ''}ts`);
  return mapped === target ? `${target}.d.ts` : mapped;
}

/**
 * Every module a published declaration file imports is part of the package, a dependency or a
 * declared peer: otherwise `tsc` without skipLibCheck fails for a user, and with it the types
 * silently become `any`. `node:` modules need `@types/node` declared. A CommonJS declaration
 * (.d.cts) must not import an ESM one (.d.ts, in a "type": "module" package).
 */
async function checkDeclarationImports(packed: Packed): Promise<{ problems: string[]; imported: string[] }> {
  const { manifest } = packed;
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const has = new Set(packed.files);
  const problems: string[] = [];
  const imported = new Set<string>();
  const dir = unpackedDir(path.dirname(packed.tarball), packed);
  for (const file of packed.files.filter((name) => /\.d\.[cm]?ts$/.test(name))) {
    const text = await readFile(path.join(dir, file), 'utf8');
    // TypeScript's own scan: import/export ... from, import(), require(), /// <reference types>.
    const scanned = ts.preProcessFile(text, true, true);
    const specifiers = [...scanned.importedFiles, ...scanned.typeReferenceDirectives].map(
      (ref) => ref.fileName,
    );
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        const target = declarationFor(file, specifier);
        if (!has.has(target))
          problems.push(`${file} imports ${specifier}, but ${target} is not in the tarball`);
        else if (file.endsWith('.d.cts') && target.endsWith('.d.ts') && manifest.type === 'module') {
          problems.push(`${file} (CommonJS) imports ${specifier}, an ESM declaration`);
        }
        continue;
      }
      const builtin = specifier.startsWith('node:') || BUILTINS.has(specifier);
      const name = builtin ? '@types/node' : packageOf(specifier);
      imported.add(builtin ? `${specifier} (@types/node)` : name);
      if (!declared.has(name)) {
        problems.push(
          `${file} imports "${specifier}", but ${name} is neither a dependency nor a peer dependency of ${manifest.name}`,
        );
      }
    }
  }
  return { problems: [...new Set(problems)], imported: [...imported].sort() };
}

/** publint over the tarball; any message at all (suggestions too) is a problem. */
async function runPublint(packed: Packed): Promise<string[]> {
  const tarball = await readFile(packed.tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
    level: 'suggestion',
    strict: true,
  });
  return messages.map(
    (message) =>
      `publint ${message.type} ${message.code}: ${formatMessage(message, pkg, { color: false }) ?? JSON.stringify(message)}`,
  );
}

const require = createRequire(import.meta.url);
const attwCli = (() => {
  const manifestPath = require.resolve('@arethetypeswrong/cli/package.json');
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin: Record<string, string>;
  };
  return path.join(path.dirname(manifestPath), bin.attw!);
})();

/**
 * attw over the tarball with its default ("strict") profile: node10, node16 from CommonJS,
 * node16 from ESM and bundler resolution all must find the right declarations. No rule is
 * ignored. `--no-definitely-typed`: the packages ship their own types, and attw would otherwise
 * ask the registry for @types/queueport__* packages that do not exist.
 */
async function runAttw(packed: Packed): Promise<string[]> {
  try {
    await run(
      process.execPath,
      [attwCli, packed.tarball, '--no-definitely-typed', '--format', 'ascii', '--no-color', '--no-emoji'],
      { cwd: path.dirname(packed.tarball), timeoutMs: 120_000 },
    );
    return [];
  } catch (error) {
    return [`attw: ${messageOf(error)}`];
  }
}

async function main(): Promise<number> {
  const { keep, rebuild } = parseCli();
  const progress = new Progress();
  console.log(`lint-packages: ${PACKAGES.map((pkg) => pkg.name).join(', ')}`);
  const packDir = await mkdtemp(path.join(os.tmpdir(), 'queueport-lint-'));
  try {
    await progress.step('dist of every package', () => ensureDist(progress, rebuild));
    const packed = await progress.step('pnpm pack', () => packAll(progress, packDir));
    const failures: string[] = [];
    await progress.step('metadata and declaration imports', async () => {
      for (const pkg of PACKAGES) {
        const result = packed.get(pkg.name)!;
        const workspace = await readJson<Manifest>(path.join(ROOT, pkg.dir, 'package.json'));
        const problems = await checkMetadata(result, workspace);
        const declarations = await checkDeclarationImports(result);
        problems.push(...declarations.problems);
        progress.detail(
          `${pkg.name}: ${problems.length === 0 ? 'ok' : `${problems.length} problem(s)`}; declarations import ${declarations.imported.join(', ') || 'nothing outside the package'}`,
        );
        for (const problem of problems) failures.push(`${pkg.name}: ${problem}`);
      }
    });
    await progress.step('publint and attw', async () => {
      const results = await Promise.all(
        PACKAGES.map(async (pkg) => {
          const result = packed.get(pkg.name)!;
          const [lint, types] = await Promise.all([runPublint(result), runAttw(result)]);
          return { pkg, lint, types };
        }),
      );
      for (const { pkg, lint, types } of results) {
        progress.detail(
          `${pkg.name}: publint ${lint.length === 0 ? 'clean' : `${lint.length} message(s)`}, attw ${types.length === 0 ? 'no problems' : 'problems'}`,
        );
        for (const problem of [...lint, ...types]) failures.push(`${pkg.name}: ${problem}`);
      }
    });
    if (failures.length > 0) throw new CheckFailed(failures.join('\n'));
    console.log(`\nlint-packages: passed\n${progress.summary()}`);
    return 0;
  } catch (error) {
    const message =
      error instanceof CheckFailed ? error.message : ((error as Error).stack ?? messageOf(error));
    console.error(`\nlint-packages: FAILED\n${message}`);
    return 1;
  } finally {
    if (keep) console.log(`kept ${packDir}`);
    else await rm(packDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
