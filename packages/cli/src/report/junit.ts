import { countChecks } from './human';
import type { CheckResult, CommandReport } from './report-types';
import { attributes, escapeXml } from './xml';

/**
 * The report as JUnit XML, for CI test reports: one testsuite per provider (checks without one
 * form the command's own suite), one testcase per check with its time in seconds, `failure`
 * and `skipped` elements, the summary as the first suite's properties.
 */
export function formatJunit(report: CommandReport): string {
  const suites = groupByProvider(report.checks);
  const totals = countChecks(report.checks);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({
      name: `queueport ${report.command}`,
      tests: report.checks.length,
      failures: totals.failed,
      errors: 0,
      skipped: totals.skipped,
      time: seconds(report.durationMs),
    })}>`,
  ];
  if (suites.length === 0) suites.push({ provider: undefined, checks: [] });
  suites.forEach(({ provider, checks }, index) => {
    const counts = countChecks(checks);
    const name = provider ? `${report.command} (${provider})` : report.command;
    lines.push(
      `  <testsuite${attributes({
        name,
        tests: checks.length,
        failures: counts.failed,
        errors: 0,
        skipped: counts.skipped,
        time: seconds(checks.reduce((sum, check) => sum + check.durationMs, 0)),
        timestamp: report.startedAt,
      })}>`,
    );
    if (index === 0 && report.summary && Object.keys(report.summary).length > 0) {
      lines.push('    <properties>');
      for (const [key, value] of Object.entries(report.summary)) {
        lines.push(`      <property${attributes({ name: key, value: String(value) })}/>`);
      }
      lines.push('    </properties>');
    }
    for (const check of checks) lines.push(...testcase(report.command, check));
    if (index === 0 && report.notes && report.notes.length > 0) {
      lines.push(`    <system-out>${escapeXml(report.notes.join('\n'))}</system-out>`);
    }
    lines.push('  </testsuite>');
  });
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function testcase(command: string, check: CheckResult): string[] {
  const open = `    <testcase${attributes({
    classname: `queueport.${command}${check.provider ? `.${check.provider}` : ''}`,
    name: `${check.id}: ${check.title}`,
    time: seconds(check.durationMs),
  })}`;
  if (check.status === 'passed') return [`${open}/>`];
  const detail = check.detail ?? check.status;
  const message = detail.split('\n')[0] ?? detail;
  const inner =
    check.status === 'failed'
      ? `      <failure${attributes({ message, type: 'CheckFailed' })}>${escapeXml(detail)}</failure>`
      : `      <skipped${attributes({ message })}/>`;
  return [`${open}>`, inner, '    </testcase>'];
}

function groupByProvider(
  checks: readonly CheckResult[],
): { provider: string | undefined; checks: CheckResult[] }[] {
  const groups = new Map<string | undefined, CheckResult[]>();
  for (const check of checks) {
    const group = groups.get(check.provider);
    if (group) group.push(check);
    else groups.set(check.provider, [check]);
  }
  return [...groups].map(([provider, grouped]) => ({ provider, checks: grouped }));
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}
