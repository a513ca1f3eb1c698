import { INSTALLED_FIELDS, shortName, type WorkspacePackage } from '../package-check/workspace-packages';
import { fencedBlocks, markdownTables, section } from './markdown';

/*
 * Where the docs list the workspace's packages, read back so the docs test can hold each list
 * to the workspace (workspace-packages.ts): the README's layout, ARCHITECTURE.md's diagram and
 * dependency table, and the release group of .changeset/config.json.
 */

/**
 * The folders the README's layout shows (the fenced block under "## Layout"), as paths: a line
 * that starts, indented by at most six spaces, with `name/` is a folder, and one indented deeper
 * than the folder line before it is that folder's child (`packages/` then `  core/` is
 * `packages/core`). The descriptions beside them, and their continuation lines, are not read.
 */
export function layoutFolders(readme: string): string[] {
  const layout = section(readme, 'Layout');
  if (!layout) throw new Error('README.md has no "## Layout" section');
  const block = fencedBlocks(layout.text)[0];
  if (!block) throw new Error('the "## Layout" section of README.md has no fenced block');
  const folders: string[] = [];
  const parents: { indent: number; path: string }[] = [];
  for (const line of block.body) {
    const match = /^( {0,6})([\w.@-]+)\/(\s|$)/.exec(line);
    if (!match) continue;
    const indent = match[1]!.length;
    while (parents.length > 0 && parents.at(-1)!.indent >= indent) parents.pop();
    const folder = [...parents.map((p) => p.path).slice(-1), match[2]!].join('/');
    folders.push(folder);
    parents.push({ indent, path: folder });
  }
  return folders;
}

export interface DependencyRow {
  line: number;
  name: string;
  dependsOn: string;
}

/**
 * The rows of ARCHITECTURE.md's dependency table (under "## Packages and their dependencies"):
 * the package named in the first cell, what the second cell says it depends on.
 */
export function dependencyRows(architecture: string): DependencyRow[] {
  const packages = section(architecture, 'Packages and their dependencies');
  if (!packages) throw new Error('ARCHITECTURE.md has no "## Packages and their dependencies" section');
  const table = markdownTables(packages.text).find((t) => t.header[0]?.toLowerCase() === 'package');
  if (!table)
    throw new Error(
      'ARCHITECTURE.md: no table whose first column is "package" under its dependencies heading',
    );
  return table.rows.map((row) => ({
    line: packages.line + row.line - 1,
    name: /`([^`]+)`/.exec(row.cells[0] ?? '')?.[1] ?? row.cells[0] ?? '',
    dependsOn: row.cells[1] ?? '',
  }));
}

/**
 * What a row leaves out of the package's manifest: every dependency, optional dependency and
 * peer must be named, a queueport one by its short name (`core`) or in full, any other in
 * backticks (`pg`).
 */
export function unnamedDependencies(row: DependencyRow, pkg: WorkspacePackage): string[] {
  const named = new Set([...row.dependsOn.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  const words = new Set(row.dependsOn.split(/[^\w@/.-]+/).filter(Boolean));
  const declared = new Set(INSTALLED_FIELDS.flatMap((field) => Object.keys(pkg.manifest[field] ?? {})));
  return [...declared].filter((dep) => {
    if (named.has(dep) || words.has(dep)) return false;
    return !(dep.startsWith('@queueport/') && words.has(shortName(dep)));
  });
}

/** The diagram of ARCHITECTURE.md: the fenced block under "## The layers". */
export function layersDiagram(architecture: string): string {
  const layers = section(architecture, 'The layers');
  const block = layers && fencedBlocks(layers.text)[0];
  if (!block) throw new Error('ARCHITECTURE.md has no diagram under "## The layers"');
  return block.body.join('\n');
}

/** The cells of the entry-point table of ARCHITECTURE.md (under "## Entry points by audience"), joined. */
export function entryPointTable(architecture: string): string {
  const entries = section(architecture, 'Entry points by audience');
  const table = entries && markdownTables(entries.text)[0];
  if (!table) throw new Error('ARCHITECTURE.md has no table under "## Entry points by audience"');
  return table.rows.map((row) => row.cells.join(' | ')).join('\n');
}

/** Whether `text` names `name` as a whole package name (not as the start of a longer one). */
export const namesPackage = (text: string, name: string): boolean =>
  new RegExp(`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w/-])`).test(text);

/** The release group: the one `fixed` group of .changeset/config.json (released together at one version). */
export function releaseGroup(config: { fixed?: string[][]; linked?: string[][] }): string[] {
  const groups = config.fixed ?? [];
  if (groups.length !== 1)
    throw new Error(`.changeset/config.json has ${groups.length} fixed groups, not one`);
  return groups[0]!;
}
