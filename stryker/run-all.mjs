// `pnpm mutation`: runs both StrykerJS configurations one after the other, then prints each
// score from its JSON report, with and without the survivors stryker/survivors.json classifies as not a gap.
// Not part of CI. `pnpm mutation driver` or `pnpm mutation ledger` runs one of them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root, survivorsOf } from './survivors.mjs';

const all = ['driver', 'ledger'];
const names = process.argv.slice(2).filter((arg) => all.includes(arg));
const runs = names.length > 0 ? names : all;
const skipRun = process.argv.includes('--report-only');

function summarize(name) {
  const { report, survivors: found } = survivorsOf(name);
  const counts = {
    Killed: 0,
    Survived: 0,
    Timeout: 0,
    NoCoverage: 0,
    CompileError: 0,
    RuntimeError: 0,
    Ignored: 0,
  };
  for (const { mutants } of Object.values(report.files)) {
    for (const mutant of mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  let equivalentSurvivors = 0;
  /** @type {Record<string, number>} */
  const byClass = {};
  const survivors = [];
  for (const { file, mutant, original, entry } of found) {
    const kind = entry?.class ?? 'unclassified';
    byClass[kind] = (byClass[kind] ?? 0) + 1;
    if (entry && entry.class !== 'gap') equivalentSurvivors++;
    survivors.push({ file, mutant, kind, original });
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
