import path from 'node:path';
import ts from 'typescript';
import { INSTALLED_FIELDS, PACKAGES, type PackageInfo, ROOT } from '../package-check/workspace-packages';
import { markdownTables, proseLines } from './markdown';
import type { PublicApi } from './public-api';

/*
 * The option names a package README gives must be names the package's exported types have: a
 * renamed option (`maxDeliveries` became `retry.maxAttempts`) otherwise lives on in the docs, and
 * a reader's config is refused, or silently ignored, for a name the README taught them.
 *
 * What counts as an option name, precisely (everything else, such as a method or a variable in
 * prose, is left alone):
 *   1. in a table whose first header cell ends in "option" (`Option`, `Query option`), every
 *      backticked identifier in a row's first cell;
 *   2. in prose (not code blocks, not tables), a backticked identifier right after the word
 *      "option" or "options" (option `x`, options `x`, `y`), or right before it (the `x` option),
 *      or after a possessive of the consumer, queue, worker, sender, driver or harness (the
 *      consumer's `x`): the forms in which these READMEs name an option in a sentence.
 * An identifier is lowerCamelCase (`maxAttempts`, `db`); a dotted path (`retry.maxAttempts`) is
 * checked name by name. The names a package has are those its public API, and the public API of
 * the queueport packages it depends on, export or reach (public-api.ts), and the query options of its URL grammar (the keys of `options` in its
 * `defineUrlGrammar({ ... })`, read from the source by the compiler): a URL option is parsed into
 * a driver option or a client's setting, not always under its own name.
 */

const IDENTIFIER = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/;
const BACKTICKED = /`([^`]+)`/g;
const OWNERS = 'consumer|queue|worker|sender|driver|harness|adapter|receiver';
const PROSE_FORMS = [
  // option `x` / options `x`, `y` and `z`
  /\boptions?\s+((?:`[^`]+`(?:,\s*|\s+and\s+|\s+or\s+)?)+)/gi,
  // the `x` option / `x` and `y` options
  /((?:`[^`]+`(?:,\s*|\s+and\s+|\s+or\s+)?)+)\s+options?\b/gi,
  // the consumer's `x`
  new RegExp(`\\b(?:${OWNERS})'s\\s+(\`[^\`]+\`)`, 'gi'),
];

export interface OptionMention {
  readme: string;
  line: number;
  name: string;
  /** Which rule found it: the options table or a sentence. */
  how: 'table' | 'prose';
}

const identifiersIn = (text: string): string[] =>
  [...text.matchAll(BACKTICKED)].map((m) => m[1]!.trim()).filter((inner) => IDENTIFIER.test(inner));

/** The option names a README gives, by the rule above. */
export function optionMentions(readme: string, text: string): OptionMention[] {
  const found: OptionMention[] = [];
  for (const table of markdownTables(text)) {
    if (!/option$/i.test(table.header[0]?.trim() ?? '')) continue;
    for (const row of table.rows) {
      for (const name of identifiersIn(row.cells[0] ?? ''))
        found.push({ readme, line: row.line, name, how: 'table' });
    }
  }
  for (const { line, text: prose } of proseLines(text)) {
    for (const form of PROSE_FORMS) {
      for (const match of prose.matchAll(form)) {
        for (const name of identifiersIn(match[1]!)) found.push({ readme, line, name, how: 'prose' });
      }
    }
  }
  const unique = new Map(found.map((m) => [`${m.line}:${m.name}`, m]));
  return [...unique.values()].sort((a, b) => a.line - b.line || a.name.localeCompare(b.name));
}

/**
 * Every name the public API of `pkg` exports or reaches, and its URL grammar's query options;
 * with those of the queueport packages it depends on (a driver's README may name the consumer's
 * options, which core declares), since its users have those types too.
 */
export function publicNames(api: PublicApi, pkg: PackageInfo): Set<string> {
  const own = new Set([pkg.name, ...queueportDependencies(pkg)]);
  const names = new Set<string>();
  const entries = api.files.filter((f) => own.has(f.pkg.name)).map((f) => f.entry);
  api.walk(entries, ({ name }) => names.add(name));
  for (const name of urlOptionNames(api.program, path.join(ROOT, pkg.dir, 'src'))) names.add(name);
  return names;
}

const queueportDependencies = (pkg: PackageInfo): string[] =>
  INSTALLED_FIELDS.flatMap((field) => Object.keys(pkg.manifest[field] ?? {})).filter((dep) =>
    dep.startsWith('@queueport/'),
  );

/** The keys of `options` in every `defineUrlGrammar({ ... })` call of the sources under `dir`. */
export function urlOptionNames(program: ts.Program, dir: string): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'defineUrlGrammar' &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0])
    ) {
      for (const property of node.arguments[0].properties) {
        if (
          ts.isPropertyAssignment(property) &&
          property.name.getText() === 'options' &&
          ts.isObjectLiteralExpression(property.initializer)
        ) {
          for (const option of property.initializer.properties) {
            if (option.name) names.push(option.name.getText().replace(/^['"]|['"]$/g, ''));
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const source of program.getSourceFiles()) {
    if (source.fileName.startsWith(`${dir}${path.sep}`)) visit(source);
  }
  return names;
}

export interface UnknownOption extends OptionMention {
  pkg: string;
}

/** Each option name of each published package's README that its public API does not have. */
export function unknownOptions(
  api: PublicApi,
  readReadme: (pkg: PackageInfo) => string | undefined,
  packages: readonly PackageInfo[] = PACKAGES,
): { unknown: UnknownOption[]; mentions: OptionMention[] } {
  const unknown: UnknownOption[] = [];
  const mentions: OptionMention[] = [];
  for (const pkg of packages) {
    const text = readReadme(pkg);
    if (text === undefined) continue;
    const found = optionMentions(`${pkg.dir}/README.md`, text);
    mentions.push(...found);
    if (found.length === 0) continue;
    const names = publicNames(api, pkg);
    for (const mention of found) {
      if (mention.name.split('.').some((part) => !names.has(part)))
        unknown.push({ ...mention, pkg: pkg.name });
    }
  }
  return { unknown, mentions };
}
