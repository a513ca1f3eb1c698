import type { ConformanceReport, PropertyResult } from './report';
import { INTERRUPTED } from './run-property';

const MARK: Record<PropertyResult['status'], string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };

/**
 * How to run one failed case again: flags for a runner built on `runConformance` (the CLI), or
 * environment variables and a test filter for `describeConformance` under vitest.
 */
export type ReplayStyle = 'cli' | 'vitest';

export function replayLine(result: PropertyResult, style: ReplayStyle = 'cli'): string {
  if (style === 'vitest') {
    const env = [`QUEUEPORT_SEED=${result.seed}`, result.path ? `QUEUEPORT_PATH=${result.path}` : '']
      .filter(Boolean)
      .join(' ');
    return `${env} npx vitest run -t '${result.id}:'`;
  }
  return [`--seed ${result.seed}`, result.path ? `--path ${result.path}` : '', `--only ${result.id}`]
    .filter(Boolean)
    .join(' ');
}

/** The failure as a person needs it: what broke, on which input, and how to replay it. */
export function formatFailure(result: PropertyResult, harness?: string, style: ReplayStyle = 'cli'): string {
  const replay = replayLine(result, style);
  return [
    `${result.id} failed${harness ? ` on ${harness}` : ''} after ${result.runs} run(s): ${result.error ?? 'unknown error'}`,
    `  counterexample: ${result.counterexample ?? 'none'}`,
    `  replay: ${replay}`,
  ].join('\n');
}

export function formatResultLine(result: PropertyResult): string {
  const detail =
    result.status === 'skipped'
      ? `skipped: ${result.reason}`
      : `${result.runs} run(s), ${(result.durationMs / 1000).toFixed(1)} s`;
  return `${MARK[result.status]}  ${result.id.padEnd(24)} ${detail}`;
}

/** The checks a property could not make on this harness, one line each. */
export function formatNotes(result: PropertyResult): string[] {
  return (result.notes ?? []).map((note) => `not checked: ${note}`);
}

export function formatReport(report: ConformanceReport): string {
  const lines = [`conformance: ${report.harness} (seed ${report.seed})`];
  for (const result of report.results) {
    lines.push(formatResultLine(result));
    for (const note of formatNotes(result)) lines.push(`      ${note}`);
    if (result.status === 'failed') lines.push(formatFailure(result).replace(/^/gm, '      '));
  }
  const { passed, failed, skipped } = report.summary;
  const notRun = report.results.filter((r) => r.status === 'skipped' && r.reason === INTERRUPTED).length;
  lines.push(
    `${passed} passed, ${failed} failed, ${skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s` +
      (report.interrupted ? ` (interrupted: ${notRun} not run)` : ''),
  );
  return lines.join('\n');
}
