import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGES, ROOT, workspaceGlobs, workspacePackages } from '../package-check/workspace-packages';
import {
  dependencyRows,
  entryPointTable,
  layersDiagram,
  layoutFolders,
  namesPackage,
  releaseGroup,
  unnamedDependencies,
} from './inventory';
import { tableProblems } from './markdown';
import { entryPoints } from './public-api';
import { findReadmes } from './snippets';

// Every list of packages in the docs is held to the workspace itself (pnpm-workspace.yaml and
// each package.json, read by scripts/package-check/workspace-packages.ts, which publint, attw and
// the scratch install read too): a package added to the workspace fails here until the README's
// layout shows it, ARCHITECTURE.md's diagram and dependency table have it, and it is in the
// release group. The rules:
//   - README.md "## Layout": a folder for every workspace package, private examples included,
//     and no folder under a workspace glob's parent (packages/, examples/) that is not one.
//   - ARCHITECTURE.md "## The layers": the diagram names every published package.
//   - ARCHITECTURE.md "## Packages and their dependencies": one row per published package, no
//     other, each naming every dependency and peer its package.json declares.
//   - ARCHITECTURE.md "## Entry points by audience": names every entry point of every published
//     package.
//   - .changeset/config.json: one fixed group, exactly the published packages.
//   - A count of packages in the docs ("six packages") is the workspace's.
//   - Every table of README.md, ARCHITECTURE.md and every README.md: rows as wide as the
//     delimiter row, a name on every header column but a row-label first one, no stray row.

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');
const ARCHITECTURE = read('ARCHITECTURE.md');
const ALL = workspacePackages();

describe('the inventory: read from the workspace', () => {
  it('finds every package the workspace globs match, and only those', () => {
    expect(workspaceGlobs()).toEqual(expect.arrayContaining(['packages/*', 'conformance']));
    for (const pkg of ALL) {
      const manifest = JSON.parse(read(`${pkg.dir}/package.json`)) as { name: string; private?: boolean };
      expect(manifest.name, pkg.dir).toBe(pkg.name);
      expect(pkg.private, pkg.dir).toBe(manifest.private === true);
    }
    // The published packages are the public ones, each after every workspace package it needs.
    expect(PACKAGES.map((p) => p.name)).toEqual(ALL.filter((p) => !p.private).map((p) => p.name));
    expect(PACKAGES.map((p) => p.name)).toContain('@queueport/cli');
    const position = new Map(ALL.map((p, i) => [p.name, i]));
    for (const pkg of ALL) {
      for (const dep of Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })) {
        if (position.has(dep))
          expect(position.get(dep)!, `${dep} before ${pkg.name}`).toBeLessThan(position.get(pkg.name)!);
      }
    }
  });
});

describe('docs: every workspace package is listed', () => {
  it('the README layout shows every workspace package, and no package that is not one', () => {
    const folders = layoutFolders(README);
    expect(ALL.map((p) => p.dir).filter((dir) => !folders.includes(dir))).toEqual([]);
    const globParents = workspaceGlobs()
      .filter((glob) => glob.endsWith('/*'))
      .map((glob) => glob.slice(0, -2));
    const stale = folders.filter(
      (folder) => globParents.includes(path.posix.dirname(folder)) && !ALL.some((p) => p.dir === folder),
    );
    expect(stale).toEqual([]);
  });

  it('the ARCHITECTURE diagram names every published package', () => {
    const diagram = layersDiagram(ARCHITECTURE);
    expect(PACKAGES.map((p) => p.name).filter((name) => !namesPackage(diagram, name))).toEqual([]);
  });

  it('the ARCHITECTURE dependency table has one row per published package, naming what it depends on', () => {
    const rows = dependencyRows(ARCHITECTURE);
    expect(rows.map((r) => r.name).sort()).toEqual(PACKAGES.map((p) => p.name).sort());
    const unnamed = rows.flatMap((row) => {
      const pkg = PACKAGES.find((p) => p.name === row.name)!;
      return unnamedDependencies(row, pkg).map(
        (dep) => `ARCHITECTURE.md:${row.line} ${row.name} does not name ${dep}`,
      );
    });
    expect(unnamed).toEqual([]);
  });

  it('the ARCHITECTURE entry-point table names every entry point', () => {
    const table = entryPointTable(ARCHITECTURE);
    const named = (entry: string) => {
      // `@queueport/core/driver`, or the short form the table uses after its package (`/driver`).
      const [scope, name, ...rest] = entry.split('/');
      const pkg = `${scope}/${name}`;
      return (
        namesPackage(table, entry) ||
        (rest.length > 0 && namesPackage(table, pkg) && table.includes(`\`/${rest.join('/')}\``))
      );
    };
    expect(
      entryPoints()
        .map((e) => e.entry)
        .filter((entry) => !named(entry)),
    ).toEqual([]);
  });

  it('the release group is exactly the published packages', () => {
    const group = releaseGroup(JSON.parse(read('.changeset/config.json')));
    expect([...group].sort()).toEqual(PACKAGES.map((p) => p.name).sort());
  });
});

const NUMBERS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];
const COUNT = new RegExp(`\\b(${NUMBERS.join('|')}|\\d+) (published |workspace )?packages\\b`, 'gi');

describe('docs: package counts', () => {
  // "the six packages" outlived three new ones: a count of packages must be the workspace's.
  // "<n> packages" and "<n> published packages" count the published ones, "<n> workspace
  // packages" every one, private examples included.
  const files = [
    'ARCHITECTURE.md',
    '.changeset/README.md',
    ...findReadmes(ROOT),
    'scripts/package-check/install-alone.ts',
    'scripts/package-check/lint-packages.ts',
  ];
  it.each(files)('%s', (file) => {
    const wrong = read(file)
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(COUNT)].flatMap((match) => {
          const said = NUMBERS.includes(match[1]!.toLowerCase())
            ? NUMBERS.indexOf(match[1]!.toLowerCase())
            : Number(match[1]);
          const actual = match[2]?.trim() === 'workspace' ? ALL.length : PACKAGES.length;
          return said === actual ? [] : [`${file}:${i + 1} "${match[0]}": there are ${actual}`];
        }),
      );
    expect(wrong).toEqual([]);
  });
});

describe('docs: tables are whole', () => {
  it.each(['README.md', 'ARCHITECTURE.md', ...findReadmes(ROOT).filter((f) => f !== 'README.md')])(
    '%s',
    (file) => {
      expect(tableProblems(read(file)).map((p) => `${file}:${p.line} ${p.problem}`)).toEqual([]);
    },
  );
});

describe('docs: the readers of the lists', () => {
  it('read a layout folder by folder', () => {
    const readme = [
      '## Layout',
      '',
      '```',
      'packages/',
      '  core/        the port, and a description',
      '               that goes on: not/ a folder',
      '  memory/      the reference driver',
      'conformance/   the suite',
      'examples/',
      '  a-b/         one example',
      '```',
      '## Next',
    ].join('\n');
    expect(layoutFolders(readme)).toEqual([
      'packages',
      'packages/core',
      'packages/memory',
      'conformance',
      'examples',
      'examples/a-b',
    ]);
  });

  it('find a dependency a table row leaves out', () => {
    const pkg = { ...PACKAGES.find((p) => p.name === '@queueport/webhook')! };
    pkg.manifest = {
      name: pkg.name,
      version: '0',
      dependencies: { '@queueport/core': '0', ajv: '8' },
      peerDependencies: { pg: '8' },
    };
    const row = { line: 1, name: pkg.name, dependsOn: 'core, `pg` as a peer' };
    expect(unnamedDependencies(row, pkg)).toEqual(['ajv']);
    expect(unnamedDependencies({ ...row, dependsOn: 'core, `ajv`; `pg`' }, pkg)).toEqual([]);
  });

  it('read a package count in words or digits', () => {
    const counts = [
      ...'the six packages, 9 published packages, two workspace packages, a package'.matchAll(COUNT),
    ];
    expect(counts.map((m) => [m[1], m[2]?.trim()])).toEqual([
      ['six', undefined],
      ['9', 'published'],
      ['two', 'workspace'],
    ]);
  });

  it('tell a package from a longer name', () => {
    expect(namesPackage('`@queueport/core/driver`', '@queueport/core')).toBe(false);
    expect(namesPackage('`@queueport/core` (the port)', '@queueport/core')).toBe(true);
    expect(namesPackage('@queueport/core-extra', '@queueport/core')).toBe(false);
  });

  it('find a broken table', () => {
    const text = [
      '| option | default | |',
      '|---|---|---|',
      '| `a` | 1 | x |',
      '| `b` | 2 |',
      '',
      '| stray | row |',
    ].join('\n');
    expect(tableProblems(text)).toEqual([
      { line: 1, problem: 'header column 3 has no name' },
      { line: 4, problem: '2 cells in a table of 3 columns' },
      { line: 6, problem: 'a table row outside any table (is the delimiter row missing?)' },
    ]);
  });
});
