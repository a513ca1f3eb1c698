// `pnpm mutation`: runs both StrykerJS configurations one after the other, then prints each
// score from its JSON report, with and without the mutants listed in equivalent-mutants.json.
// Not part of CI. `pnpm mutation driver` or `pnpm mutation ledger` runs one of them.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const all = ['driver', 'ledger'];
const names = process.argv.slice(2).filter((arg) => all.includes(arg));
const runs = names.length > 0 ? names : all;
const skipRun = process.argv.includes('--report-only');

/**
 * Every survivor of the last analysed runs, classified with its reason (see conformance/README.md,
 * "Mutation score"): `gap` (a property could catch it), `equivalent` (no observable change
 * through the Queue), `permitted` (the mutated driver is still conformant: a different manifest,
 * or a choice the contract leaves open), `out-of-scope` (reachable only with input a harness
 * never gives, e.g. a non-driver). Only `gap` counts against the second score.
 * @type {{ config: string, file: string, line: number, column: number, mutator: string, original: string, replacement: string, class: string, reason: string }[]}
 */
const known = JSON.parse(readFileSync(path.join(root, 'stryker/survivors.json'), 'utf8'));

function sourceText(source, location) {
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
function classify(name, file, original, mutant) {
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

function summarize(name) {
  const report = JSON.parse(readFileSync(path.join(root, `reports/mutation/${name}.json`), 'utf8'));
  const counts = {
    Killed: 0,
    Survived: 0,
    Timeout: 0,
    NoCoverage: 0,
    CompileError: 0,
    RuntimeError: 0,
    Ignored: 0,
  };
  let equivalentSurvivors = 0;
  /** @type {Record<string, number>} */
  const byClass = {};
  const survivors = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants) {
      counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
      if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') {
        const original = sourceText(source, mutant.location);
        const entry = classify(name, file, original, mutant);
        const kind = entry?.class ?? 'unclassified';
        byClass[kind] = (byClass[kind] ?? 0) + 1;
        if (entry && entry.class !== 'gap') equivalentSurvivors++;
        survivors.push({ file, mutant, kind, original });
      }
    }
  }
  const detected = counts.Killed + counts.Timeout;
  const valid = detected + counts.Survived + counts.NoCoverage;
  const pct = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(2)} %`);
  console.log(`\n== mutation score: ${name} ==`);
  console.log(
    `killed ${counts.Killed}, survived ${counts.Survived}, timeout ${counts.Timeout}, ` +
      `no coverage ${counts.NoCoverage}, compile/runtime errors ${counts.CompileError + counts.RuntimeError}`,
  );
  console.log(`score ${pct(detected, valid)} (${detected}/${valid})`);
  console.log(
    `score of non-equivalent ${pct(detected, valid - equivalentSurvivors)} ` +
      `(${detected}/${valid - equivalentSurvivors}; survivors by class: ` +
      `${
        Object.entries(byClass)
          .map(([kind, n]) => `${n} ${kind}`)
          .join(', ') || 'none'
      })`,
  );
  const gaps = survivors.filter((s) => s.kind === 'gap' || s.kind === 'unclassified');
  if (gaps.length > 0) {
    console.log('gaps in the suite, and survivors not yet classified:');
    for (const { file, mutant, original, kind } of gaps) {
      const { line, column } = mutant.location.start;
      console.log(
        `  ${kind === 'gap' ? 'gap         ' : 'UNCLASSIFIED'} ${file}:${line}:${column} ${mutant.mutatorName} [${mutant.status}] ` +
          `${JSON.stringify(original)} -> ${JSON.stringify(mutant.replacement)}`,
      );
    }
  }
  return counts;
}

let failed = false;
for (const name of runs) {
  if (!skipRun) {
    const started = Date.now();
    const run = spawnSync('pnpm', ['exec', 'stryker', 'run', `stryker/${name}.conf.mjs`], {
      cwd: root,
      stdio: 'inherit',
    });
    console.log(`stryker ${name}: exit ${run.status}, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (run.status !== 0) failed = true;
  }
  if (existsSync(path.join(root, `reports/mutation/${name}.json`))) summarize(name);
}
process.exitCode = failed ? 1 : 0;
