/**
 * pnpm --filter @queueport/example-ci-quarterly-drill check [workflow.yml] [queueport.config.json]
 *
 * Checks a drill workflow and its configuration (by default this example's) and prints what
 * would break the next scheduled drill. Exit code 0 when nothing would, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkConfig, checkTogether, checkWorkflow } from './drill-setup-checks';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const [workflowArg, configArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const workflowFile = resolve(workflowArg ?? join(here, '.github/workflows/queueport-drill.yml'));
const configFile = resolve(configArg ?? join(here, 'queueport.config.json'));

const workflow = checkWorkflow(await readFile(workflowFile, 'utf8'));
const config = checkConfig(JSON.parse(await readFile(configFile, 'utf8')));
const problems = [...workflow.problems, ...config.problems, ...checkTogether(workflow.facts, config.facts)];

console.log(`workflow: ${workflowFile}\nconfig:   ${configFile}`);
console.log(`schedule: ${workflow.facts.crons.join(', ')}`);
console.log(`secrets given to the drill: ${Object.keys(workflow.facts.drillEnv).join(', ')}`);
console.log(
  `providers: ${config.facts.schemes.join(', ')}; variables named: ${config.facts.envNames.join(', ')}`,
);
if (problems.length === 0) console.log('\nok: nothing here would break the next scheduled drill');
else {
  console.log(`\n${problems.length} problem(s):`);
  for (const problem of problems) console.log(`  - ${problem}`);
}
process.exitCode = problems.length === 0 ? 0 : 1;
