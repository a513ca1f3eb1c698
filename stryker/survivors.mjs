// The classified survivors (stryker/survivors.json) and how a mutant of a report is matched to
// its entry. Shared by run-all.mjs (the scores) and survivors-table.mjs (the survivors table).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every survivor of the last analysed runs, classified with its reason (see conformance/MUTATION.md,
 * "Classes"): `gap` (a property could catch it), `equivalent` (no observable change
 * through the Queue), `permitted` (the mutated driver is still conformant: a different manifest,
 * or a choice the contract leaves open), `out-of-scope` (reachable only with input a harness
 * never gives, e.g. a non-driver). Only `gap` counts against the second score.
 * @type {{ config: string, file: string, line: number, column: number, mutator: string, original: string, replacement: string, class: string, reason: string }[]}
 */
export const known = JSON.parse(readFileSync(path.join(root, 'stryker/survivors.json'), 'utf8'));

export function loadReport(name) {
  return JSON.parse(readFileSync(path.join(root, `reports/mutation/${name}.json`), 'utf8'));
}

/** The source text a mutant replaced. */
export function sourceText(source, location) {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  return [
    lines[start.line - 1].slice(start.column - 1),
    ...lines.slice(start.line, end.line - 1),
    lines[end.line - 1].slice(0, end.column - 1),
  ].join('\n');
}

/** The listed entry for a mutant: same file, mutator, original text and replacement; nearest position wins. */
export function classify(name, file, original, mutant) {
  const candidates = known.filter(
    (e) =>
      e.config === name &&
      e.file === file &&
      e.mutator === mutant.mutatorName &&
      e.replacement === mutant.replacement &&
      e.original === original,
  );
  const { line, column } = mutant.location.start;
  const distance = (e) => Math.abs(e.line - line) * 1000 + Math.abs((e.column ?? column) - column);
  return candidates.sort((a, b) => distance(a) - distance(b))[0];
}

/** Every survivor (survived or not covered) of a report, with its entry if it has one. */
export function survivorsOf(name) {
  const report = loadReport(name);
  const survivors = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants) {
      if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
      const original = sourceText(source, mutant.location);
      survivors.push({ file, mutant, original, entry: classify(name, file, original, mutant) });
    }
  }
  return { report, survivors };
}
