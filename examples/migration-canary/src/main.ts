/**
 * pnpm --filter @queueport/example-migration-canary start [--json]
 */
import { runMigrationCanary } from './migration-canary';

const json = process.argv.includes('--json');
const { exitCode, report } = await runMigrationCanary({}, json ? undefined : (line) => console.error(line));
if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  for (const check of report.checks) {
    console.log(`${check.status.padEnd(8)} ${check.id.padEnd(26)} ${check.detail ?? ''}`);
  }
  for (const [name, value] of Object.entries(report.summary ?? {})) console.log(`  ${name}: ${value}`);
}
process.exitCode = exitCode;
